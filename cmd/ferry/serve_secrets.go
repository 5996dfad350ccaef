package main

import (
	"strings"

	"github.com/ferry-mcp/ferry/entity"
)

// secretWords are parts of a column name that suggest a credential,
// which introspection serves like any other column unless the config
// file hides it.
var secretWords = []string{"password", "passwd", "secret", "token", "api_key", "apikey", "private_key", "salt"}

// maxSecretsListed is how many such columns the start-up note names.
const maxSecretsListed = 5

// secretColumns lists, as table.column, the served columns of e whose
// name suggests a credential.
func secretColumns(e *entity.Entity) []string {
	var out []string
	for _, f := range e.Fields {
		name := strings.ToLower(f.Column)
		for _, w := range secretWords {
			if strings.Contains(name, w) {
				out = append(out, tableName(e.Table)+"."+tableName(f.Column))
				break
			}
		}
	}
	return out
}

// saySecrets warns about served columns that look like credentials, with
// the config line that hides them.
func (s *server) saySecrets(cols []string) {
	if len(cols) == 0 {
		return
	}
	s.say("note: %s %s like %s and %s served to every client; hide %s with -config (tables: NAME: hidden: [COLUMN])",
		joinLimited(cols, maxSecretsListed), plural(len(cols), "looks", "look"), plural(len(cols), "a secret", "secrets"),
		plural(len(cols), "is", "are"), plural(len(cols), "it", "them"))
}
