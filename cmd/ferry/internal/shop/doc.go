// Package shop is the demo service of ferry demo: a coffee and tea shop
// on an embedded SQLite file, with a REST API and an MCP server that use
// every part of Ferry the way a real service would.
//
// # Data
//
// [Open] creates the database on first use and seeds it from a fixed
// pseudo-random sequence (60 products, 120 customers, 240 orders with
// their lines and history; no clock is read, so two seeds are identical),
// and refuses a file that is not a shop database of [SchemaVersion].
//
// # REST API
//
// Every route needs an API key (Authorization: Bearer KEY, or X-API-Key),
// checked by the API's own middleware, which logs who called and, for an
// agent, through which tool:
//
//	GET  /api/products/{sku}         one product
//	GET  /api/orders                 orders, newest first (?customer_id=, ?status=, ?limit=)
//	POST /api/orders                 place an order: {"customer_id": 7, "lines": [{"sku": "TEA-003", "qty": 2}]}
//	GET  /api/orders/{id}            one order with its lines
//	GET  /api/orders/{id}/history    what happened to it
//	POST /api/orders/{id}/cancel     cancel it, {"reason": "..."}; 409 once shipped
//	POST /api/orders/{id}/ship       ship it; 409 once cancelled
//
// Errors are RFC 9457 problem documents, listing every field at fault.
//
// # MCP
//
// The MCP server, at /mcp behind the same keys, serves:
//
//   - entity tools, read-only, with filters, full-text search and paging:
//     get_product, list_products, aggregate_products (counts, sums,
//     averages per category), get_customer, list_customers;
//   - tools bound to the REST routes above, so an agent's call goes
//     through the same key check, validation and transaction as any
//     other: get_order, list_orders, order_history, place_order,
//     cancel_order, ship_order;
//   - restock_report, a job that asks the REST API about several
//     products and compiles a typed report;
//   - the prompts order_summary (its customer argument completes from
//     the customers' e-mail addresses) and restock_plan (its category
//     completes from the categories);
//   - the resources shop://policies, the template shop://orders/{id}
//     (the id completes), the entities' schemas (shop://entities,
//     shop://entities/{name}, shop://relationships) and the tools' JSON
//     Schemas (shop://schemas, shop://schemas/{tool}).
package shop
