package shop

// Product is a product of the shop, served by the entity tools
// get_product, list_products and aggregate_products (price and stock).
type Product struct {
	ID           int64  `json:"id" entity:"key" doc:"The product's number."`
	SKU          string `json:"sku" entity:"natural,filter,sort" doc:"Stock keeping unit, such as TEA-003." pattern:"^[A-Z]{3}-[0-9]{3}$"`
	Name         string `json:"name" entity:"filter,sort,search" doc:"The product's name." minLength:"1" maxLength:"200"`
	Description  string `json:"description" entity:"search" doc:"What the product is." maxLength:"2000"`
	Category     string `json:"category" entity:"filter,sort" doc:"The product's category." enum:"coffee,tea,brewing,cups,snacks,gifts"`
	PriceCents   int64  `json:"price_cents" entity:"filter,sort,aggregate" doc:"Price in euro cents: 1250 is 12.50 EUR." minimum:"1"`
	Stock        int64  `json:"stock" entity:"filter,sort,aggregate" doc:"Units in the warehouse now." minimum:"0"`
	ReorderLevel int64  `json:"reorder_level" entity:"filter,sort" doc:"Reorder when the stock falls below this." minimum:"0"`
}

// Customer is a customer of the shop, served by the entity tools
// get_customer and list_customers.
type Customer struct {
	ID      int64  `json:"id" entity:"key" doc:"The customer's number, as place_order takes it."`
	Email   string `json:"email" entity:"natural,filter,sort" doc:"The customer's e-mail address." format:"email"`
	Name    string `json:"name" entity:"filter,sort,search" doc:"The customer's full name." minLength:"1" maxLength:"200"`
	City    string `json:"city" entity:"filter,sort,search" doc:"The city the customer's orders ship to."`
	Country string `json:"country" entity:"filter,sort" doc:"ISO 3166-1 alpha-2 country code, such as PT." pattern:"^[A-Z]{2}$"`
	Since   string `json:"since" entity:"filter,sort" doc:"The day the customer signed up, YYYY-MM-DD." format:"date"`
}

// Order is an order with its lines, as the REST API and the order tools
// answer it.
type Order struct {
	ID         int64       `json:"id" doc:"The order's number."`
	CustomerID int64       `json:"customer_id" doc:"Who placed it."`
	Status     string      `json:"status" doc:"placed (not shipped yet, can be cancelled), shipped or cancelled." enum:"placed,shipped,cancelled"`
	PlacedAt   string      `json:"placed_at" doc:"When it was placed, RFC 3339 in UTC." format:"date-time"`
	TotalCents int64       `json:"total_cents" doc:"The sum of its lines, in euro cents."`
	Lines      []OrderLine `json:"lines" doc:"What was ordered."`
}

// OrderLine is one line of an order.
type OrderLine struct {
	SKU            string `json:"sku" doc:"The product's SKU."`
	Name           string `json:"name" doc:"The product's name."`
	Qty            int64  `json:"qty" doc:"Units ordered."`
	UnitPriceCents int64  `json:"unit_price_cents" doc:"The price of one unit when the order was placed, in euro cents."`
}

// OrderSummary is an order without its lines, as GET /api/orders lists it.
type OrderSummary struct {
	ID         int64  `json:"id" doc:"The order's number."`
	CustomerID int64  `json:"customer_id" doc:"Who placed it."`
	Status     string `json:"status" doc:"placed, shipped or cancelled." enum:"placed,shipped,cancelled"`
	PlacedAt   string `json:"placed_at" doc:"When it was placed, RFC 3339 in UTC." format:"date-time"`
	TotalCents int64  `json:"total_cents" doc:"The order's total, in euro cents."`
}

// OrderList is the answer of GET /api/orders.
type OrderList struct {
	Orders []OrderSummary `json:"orders" doc:"The orders, newest first."`
}

// Event is one step of an order's history.
type Event struct {
	At    string `json:"at" doc:"When it happened, RFC 3339 in UTC." format:"date-time"`
	Event string `json:"event" doc:"What happened." enum:"placed,shipped,cancelled"`
	Note  string `json:"note" doc:"Who or why."`
}

// History is the answer of GET /api/orders/{id}/history.
type History struct {
	OrderID int64   `json:"order_id" doc:"The order's number."`
	Events  []Event `json:"events" doc:"What happened to the order, oldest first."`
}
