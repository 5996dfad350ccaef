package shop

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/ferry-mcp/ferry/entity"
)

// The seed's sizes.
const (
	seedCustomers = 120
	seedOrders    = 240
)

// Counts are the sizes of a freshly seeded database.
type Counts struct{ Products, Customers, Orders int }

func counts() Counts {
	return Counts{Products: len(categories) * len(catalog[0].items), Customers: seedCustomers, Orders: seedOrders}
}

// seedEpoch is the first seeded order's time. Seeded data never reads the
// clock, so two seeds are identical row for row.
var seedEpoch = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

// timeLayout is how times are stored and served.
const timeLayout = "2006-01-02T15:04:05Z"

var categories = []string{"coffee", "tea", "brewing", "cups", "snacks", "gifts"}

// catalog holds ten products per category: a name and a description.
var catalog = []struct {
	prefix string
	items  [][2]string
}{
	{"COF", [][2]string{
		{"Ethiopia Yirgacheffe beans 250 g", "Light roast whole beans with notes of jasmine and lemon."},
		{"Colombia Huila beans 250 g", "Medium roast whole beans, caramel and red apple."},
		{"Brazil Cerrado beans 1 kg", "Dark roast whole beans for espresso, chocolate and nuts."},
		{"Kenya AA beans 250 g", "Bright, juicy light roast with blackcurrant."},
		{"Decaf Mexico beans 250 g", "Swiss water decaffeinated medium roast."},
		{"House espresso blend 1 kg", "The cafe's own blend, dark and syrupy."},
		{"Guatemala Antigua ground 250 g", "Ground for filter, cocoa and spice."},
		{"Sumatra Mandheling beans 250 g", "Earthy, full-bodied dark roast."},
		{"Cold brew coarse grind 500 g", "Coarse grind for cold brew, low acidity."},
		{"Costa Rica Tarrazu beans 250 g", "Clean, sweet medium roast with honey notes."},
	}},
	{"TEA", [][2]string{
		{"Darjeeling first flush 100 g", "Loose leaf black tea, floral and light."},
		{"Assam breakfast 250 g", "Strong malty loose leaf black tea."},
		{"Sencha 100 g", "Japanese steamed green tea, grassy and sweet."},
		{"Jasmine pearls 50 g", "Green tea rolled with jasmine blossoms."},
		{"Earl Grey 100 g", "Black tea with bergamot oil."},
		{"Rooibos vanilla 100 g", "Caffeine-free South African herbal tea."},
		{"Matcha ceremonial 30 g", "Stone-ground green tea powder for whisking."},
		{"Oolong Tieguanyin 100 g", "Rolled oolong, orchid and cream."},
		{"Peppermint leaves 50 g", "Whole dried peppermint, caffeine-free."},
		{"Chai masala 200 g", "Black tea with cardamom, ginger and clove."},
	}},
	{"BRW", [][2]string{
		{"Pour-over dripper", "Ceramic cone dripper for one to two cups."},
		{"Paper filters, 100 pack", "Unbleached filters for the cone dripper."},
		{"French press 1 l", "Glass and steel press for four cups."},
		{"Hand grinder", "Burr grinder with 30 grind settings."},
		{"Gooseneck kettle", "Stovetop kettle with a pouring spout."},
		{"Digital scale", "Scale with a timer, 0.1 g steps."},
		{"Moka pot, 6 cups", "Aluminium stovetop espresso maker."},
		{"Cold brew jar", "Glass jar with a fine mesh filter."},
		{"Tea infuser", "Steel mesh infuser for loose leaf tea."},
		{"Milk frother", "Battery whisk for foamed milk."},
	}},
	{"CUP", [][2]string{
		{"Stoneware mug 350 ml", "Glazed mug, dishwasher safe."},
		{"Espresso cups, set of 4", "Porcelain cups with saucers."},
		{"Double-wall glass 250 ml", "Insulated glass that stays cool to hold."},
		{"Travel mug 400 ml", "Leak-proof steel mug that keeps drinks hot."},
		{"Teapot 800 ml", "Cast iron teapot with an infuser."},
		{"Latte bowl", "Wide porcelain bowl for milky coffee."},
		{"Tasting cups, set of 6", "Small cups for comparing teas."},
		{"Enamel camping mug", "Light steel mug for outdoors."},
		{"Glass teapot 600 ml", "Borosilicate teapot, for watching the leaves."},
		{"Cappuccino cup 180 ml", "Thick porcelain cup that holds heat."},
	}},
	{"SNK", [][2]string{
		{"Almond biscotti 200 g", "Twice-baked Italian biscuits for dunking."},
		{"Dark chocolate 70% 100 g", "Single-origin bar."},
		{"Shortbread tin 300 g", "Butter shortbread fingers."},
		{"Stroopwafels, 8 pack", "Caramel waffles that sit on a cup."},
		{"Matcha cookies 150 g", "Crisp cookies with green tea."},
		{"Salted caramels 150 g", "Soft caramels with sea salt."},
		{"Ginger snaps 200 g", "Spiced thin biscuits."},
		{"Honey 250 g", "Wildflower honey for tea."},
		{"Candied orange peel 100 g", "Dipped in dark chocolate."},
		{"Oat bars, 6 pack", "Chewy oat bars with dates."},
	}},
	{"GFT", [][2]string{
		{"Coffee tasting box", "Four 100 g bags from four origins."},
		{"Tea discovery box", "Eight teas in sample tins."},
		{"Gift card 25 EUR", "Sent by e-mail, valid two years."},
		{"Gift card 50 EUR", "Sent by e-mail, valid two years."},
		{"Brewing starter kit", "Dripper, filters, scale and a bag of beans."},
		{"Tea lover's hamper", "Teapot, three teas and biscuits."},
		{"Monthly coffee, 3 months", "A new origin each month."},
		{"Espresso kit", "Moka pot, espresso blend and two cups."},
		{"Chocolate and coffee pairing", "Three bars and three coffees."},
		{"Canvas tote bag", "Sturdy bag with the shop's logo."},
	}},
}

// giftCards are the products sold at their face value.
var giftCards = map[string]int64{"Gift card 25 EUR": 2500, "Gift card 50 EUR": 5000}

var (
	firstNames = []string{"Ada", "Alan", "Grace", "Linus", "Margaret", "Ken", "Barbara", "Dennis", "Frances", "John",
		"Radia", "Edsger", "Hedy", "Tim", "Karen", "Donald", "Sophie", "Niklaus", "Joan", "Bjarne"}
	lastNames = []string{"Lovelace", "Turing", "Hopper", "Torvalds", "Hamilton", "Thompson", "Liskov", "Ritchie",
		"Allen", "McCarthy", "Perlman", "Dijkstra", "Lamarr", "Berners-Lee", "Jones", "Knuth", "Wilson", "Wirth", "Clarke", "Stroustrup"}
	cities = []struct{ city, country string }{
		{"Lisbon", "PT"}, {"Porto", "PT"}, {"Oslo", "NO"}, {"Berlin", "DE"}, {"Hamburg", "DE"}, {"Paris", "FR"},
		{"Lyon", "FR"}, {"Madrid", "ES"}, {"Amsterdam", "NL"}, {"Dublin", "IE"}, {"Vienna", "AT"}, {"Milan", "IT"},
	}
)

// seed fills the tables from a fixed pseudo-random sequence.
func seed(ctx context.Context, tx *sql.Tx) error {
	r := rand.New(rand.NewPCG(20260105, 12)) //nolint:gosec // demo data, reproducible on purpose: nothing secret
	type product struct{ price int64 }
	var products []product
	for c, cat := range catalog {
		for i, it := range cat.items {
			price := int64(300 + r.IntN(40)*50)
			if c == 5 { // gifts cost more
				price += 2000
			}
			if face, ok := giftCards[it[0]]; ok {
				price = face
			}
			stock := int64(r.IntN(120))
			reorder := int64(10 + r.IntN(21))
			if i%4 == 3 { // a quarter runs low, for the restock report
				stock = int64(r.IntN(int(reorder)))
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO products (sku, name, description, category, price_cents, stock, reorder_level)
VALUES (?, ?, ?, ?, ?, ?, ?)`, fmt.Sprintf("%s-%03d", cat.prefix, i+1), it[0], it[1], categories[c], price, stock, reorder); err != nil {
				return err
			}
			products = append(products, product{price})
		}
	}
	for i := range seedCustomers {
		first, last := firstNames[r.IntN(len(firstNames))], lastNames[r.IntN(len(lastNames))]
		place := cities[r.IntN(len(cities))]
		email := fmt.Sprintf("%s.%s%d@example.com", strings.ToLower(first), strings.ToLower(strings.ReplaceAll(last, "-", "")), i+1)
		since := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(700)).Format(time.DateOnly)
		if _, err := tx.ExecContext(ctx, `INSERT INTO customers (email, name, city, country, since) VALUES (?, ?, ?, ?, ?)`,
			email, first+" "+last, place.city, place.country, since); err != nil {
			return err
		}
	}
	at := seedEpoch
	for i := range seedOrders {
		at = at.Add(time.Duration(2+r.IntN(8)) * time.Hour)
		status := "placed"
		switch p := r.IntN(100); {
		case i < seedOrders*3/4 && p < 90:
			status = "shipped"
		case p >= 92:
			status = "cancelled"
		}
		if err := seedOrder(ctx, tx, r, int64(i+1), at, status, func(id int) int64 { return products[id].price }, len(products)); err != nil {
			return err
		}
	}
	return nil
}

// seedOrder inserts one order, its lines and its history.
func seedOrder(ctx context.Context, tx *sql.Tx, r *rand.Rand, id int64, at time.Time, status string, price func(int) int64, nProducts int) error {
	customer := 1 + r.IntN(seedCustomers)
	if _, err := tx.ExecContext(ctx, `INSERT INTO orders (id, customer_id, status, placed_at, total_cents) VALUES (?, ?, ?, ?, 0)`,
		id, customer, status, at.Format(timeLayout)); err != nil {
		return err
	}
	var total int64
	picked := map[int]bool{}
	for line := range 1 + r.IntN(4) {
		p := r.IntN(nProducts)
		for picked[p] {
			p = (p + 1) % nProducts
		}
		picked[p] = true
		qty := int64(1 + r.IntN(5))
		total += qty * price(p)
		if _, err := tx.ExecContext(ctx, `INSERT INTO order_lines (order_id, line, product_id, qty, unit_price_cents) VALUES (?, ?, ?, ?, ?)`,
			id, line+1, p+1, qty, price(p)); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE orders SET total_cents = ? WHERE id = ?`, total, id); err != nil {
		return err
	}
	events := [][3]string{{at.Format(timeLayout), "placed", "by the customer, on the web shop"}}
	switch status {
	case "shipped":
		events = append(events, [3]string{at.Add(time.Duration(20+r.IntN(30)) * time.Hour).Format(timeLayout), "shipped", "by the warehouse"})
	case "cancelled":
		events = append(events, [3]string{at.Add(time.Duration(1+r.IntN(5)) * time.Hour).Format(timeLayout), "cancelled", "by the customer: changed their mind"})
	}
	for _, e := range events {
		if _, err := tx.ExecContext(ctx, `INSERT INTO order_events (order_id, at, event, note) VALUES (?, ?, ?, ?)`, id, e[0], e[1], e[2]); err != nil {
			return err
		}
	}
	return nil
}

// createSearchIndexes creates the full-text indexes of products and
// customers, which list_products and list_customers search.
func createSearchIndexes(ctx context.Context, db *sql.DB) error {
	for _, e := range []func() (*entity.Entity, error){entity.Of[Product], entity.Of[Customer]} {
		ent, err := e()
		if err != nil {
			return err
		}
		if _, err := entity.CreateSearchIndex(ctx, db, entity.SQLite, ent, nil); err != nil {
			return err
		}
	}
	return nil
}
