package filter_test

import (
	"fmt"
	"strconv"

	"github.com/ferry-mcp/ferry/entity/internal/filter"
)

func ExampleEnv_Translate() {
	env, err := filter.NewEnv([]filter.Field{
		{Name: "name", Type: filter.Text},
		{Name: "cost", Type: filter.Number},
		{Name: "stock", Type: filter.Integer, Nullable: true},
	}, nil)
	if err != nil {
		panic(err)
	}
	columns := []string{`"p"."name"`, `"p"."cost"`, `"p"."stock"`}
	var args []any
	sql, err := env.Translate(`cost > 100 && name.contains("test") && stock != 0`, filter.PostgreSQL,
		func(i int) string { return columns[i] },
		func(v any, _ filter.Type) string { args = append(args, v); return "$" + strconv.Itoa(len(args)) })
	if err != nil {
		panic(err)
	}
	fmt.Println(sql)
	fmt.Println(args...)
	// Output:
	// ("p"."cost" > CAST($1 AS double precision)) AND (strpos(CAST("p"."name" AS text) COLLATE "C", $2) > 0) AND ("p"."stock" IS DISTINCT FROM CAST($3 AS bigint))
	// 100 test 0
}

func ExampleError() {
	env, err := filter.NewEnv([]filter.Field{
		{Name: "name", Type: filter.Text},
		{Name: "cost", Type: filter.Number},
	}, nil)
	if err != nil {
		panic(err)
	}
	_, err = env.Translate(`Cost > 100 AND name LIKE '%x%'`, filter.SQLite,
		func(int) string { return "c" }, func(any, filter.Type) string { return "?" })
	fmt.Println(err)
	// Output:
	// invalid filter: syntax error at column 12: mismatched input 'AND' expecting <EOF>; instead of LIKE write name.contains("x"), name.startsWith("x") or name.endsWith("x"); write && for AND, || for OR and ! for NOT; filterable fields: name (text), cost (number)
}
