-- Queries the query tests serve on each engine, over the product schema
-- of harness_ext_test.go.

-- name: products_costing :many
-- Products that cost at least min_cost, by sku, with their category.
-- @param min_cost number minimum:"0" default:"0" The least cost.
-- @column active boolean
-- @column category text
SELECT p.sku, p.name, p.cost, p.stock, p.active, p.created_at, c.name AS category
FROM products p LEFT JOIN categories c ON c.id = p.category_id
WHERE p.cost >= @min_cost
ORDER BY p.sku;

-- name: product :one
-- One product by its sku.
-- @title Product by sku
-- @param sku text maxLength:"64" The product's sku.
SELECT sku, name, stock FROM products WHERE sku = @sku

-- name: stock_per_category :many
-- Products and stock per category, categories without products too.
-- @column n integer
-- @column stock integer
SELECT c.name AS category, COUNT(p.id) AS n, SUM(p.stock) AS stock
FROM categories c LEFT JOIN products p ON p.category_id = c.id
GROUP BY c.name
ORDER BY c.name

-- name: cheaper_than :many
-- Skus of products cheaper than max, twice named in the statement.
-- @param max number
-- @max_rows 2
WITH cheap AS (SELECT sku, cost FROM products WHERE cost < @max)
SELECT sku FROM cheap WHERE cost < @max ORDER BY sku

-- name: restock :exec
-- Sets a product's stock.
-- @param sku text
-- @param stock integer nullable:"true"
UPDATE products SET stock = @stock WHERE sku = @sku

-- name: remove_product :exec
-- Deletes a product.
-- @param sku text
DELETE FROM products WHERE sku = @sku
