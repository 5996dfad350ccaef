-- The demo shop's own SQL, served as tools by ferry demo, and by
--   ferry serve -db ~/.cache/ferry/demo.db -queries cmd/ferry/internal/shop/queries
-- Each statement is prepared when ferry serve starts; parameters are
-- always bound. Each query is in the group of the entity whose question
-- it answers (@groups), so that the endpoint of a group serves it:
-- which products sell, what a customer spent.

-- name: best_sellers :many
-- The products that sold the most units since a day, over the orders not
-- cancelled, with the revenue in euro cents.
-- @title Best sellers
-- @groups products
-- @param since date The first day counted, YYYY-MM-DD.
-- @param top integer minimum:"1" maximum:"50" default:"10" How many products.
-- @column units integer
-- @column revenue_cents integer
SELECT p.sku, p.name, SUM(l.qty) AS units, SUM(l.qty * l.unit_price_cents) AS revenue_cents
FROM order_lines l
JOIN orders o ON o.id = l.order_id
JOIN products p ON p.id = l.product_id
WHERE o.status <> 'cancelled' AND o.placed_at >= @since
GROUP BY p.sku, p.name
ORDER BY units DESC, p.sku
LIMIT @top

-- name: customer_spend :one
-- How many orders one customer placed and what they spent, in euro cents,
-- cancelled orders left out.
-- @title Customer spend
-- @groups customers
-- @param email text maxLength:"254" The customer's e-mail address.
-- @column orders integer
-- @column spent_cents integer
SELECT c.name, c.email, COUNT(o.id) AS orders, COALESCE(SUM(o.total_cents), 0) AS spent_cents
FROM customers c
LEFT JOIN orders o ON o.customer_id = c.id AND o.status <> 'cancelled'
WHERE c.email = @email
GROUP BY c.id, c.name, c.email
