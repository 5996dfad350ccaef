// Package entity serves a service's records to agents as tools: get,
// list (with a filter, paging, ordering and search), create, update and
// delete, generated from Go struct types or read from a live SQLite,
// PostgreSQL or MySQL/MariaDB database. A model never sends SQL: filters
// are CEL expressions checked against the fields an entity allows and
// translated into parameterized SQL.
package entity
