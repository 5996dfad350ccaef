package entity_test

import (
	"log"
	"log/slog"
	"net/http/httptest"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
)

// Sale is a record whose amount may be aggregated: its entity gets
// aggregate_sales beside its other tools.
type Sale struct {
	ID     int64   `json:"id" entity:"key"`
	Region string  `json:"region" entity:"filter"`
	Amount float64 `json:"amount" entity:"filter,aggregate"`
}

func ExampleAggregate() {
	db, done := exampleDB()
	defer done()
	if _, err := db.Exec(`CREATE TABLE sales (id INTEGER PRIMARY KEY, region TEXT NOT NULL, amount REAL NOT NULL)`); err != nil {
		log.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO sales (region, amount) VALUES ('north', 10), ('north', 5.5), ('south', 7), ('North', 1)`); err != nil {
		log.Fatal(err)
	}
	srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	set, err := entity.NewSet(srv, db, nil)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := entity.Add[Sale](set, nil); err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	defer ts.Close()
	callTool(ts.URL, "aggregate_sales", `{"aggregates":["count","sum(amount)"],"groupBy":["region"],"orderBy":"sum(amount) desc"}`)
	callTool(ts.URL, "aggregate_sales", `{"aggregates":["avg(amount)","max(amount)"],"filter":"amount > 5.0"}`)
	// Output:
	// {"data":[{"region":"north","count":2,"sum(amount)":15.5},{"region":"south","count":1,"sum(amount)":7},{"region":"North","count":1,"sum(amount)":1}],"paging":{"skip":0,"top":100,"hasMore":false}}
	// {"data":[{"avg(amount)":7.5,"max(amount)":10}],"paging":{"skip":0,"top":100,"hasMore":false}}
}
