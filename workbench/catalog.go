package workbench

import (
	"encoding/json"
	"net/http"

	"github.com/ferry-mcp/ferry"
)

// catalogHandler answers "catalog.json": what the server knows of each tool
// the caller may call and a tools/list does not say (its groups, scopes
// and roles), so that the page can show them. Like tools/list, it names
// only the tools the caller may call ([ferry.Server.Allows]): a tool
// hidden from him is not in it.
func catalogHandler(s *ferry.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		type entry struct {
			Groups []string `json:"groups,omitempty"`
			Scopes []string `json:"scopes,omitempty"`
			Roles  []string `json:"roles,omitempty"`
		}
		tools := map[string]entry{}
		for _, t := range s.Catalog().Tools() {
			if !s.Allows(r.Context(), t) {
				continue
			}
			tools[t.Name] = entry{t.Groups, t.Scopes, t.Roles}
		}
		b, err := json.Marshal(struct {
			Tools map[string]entry `json:"tools"`
		}{tools})
		if err != nil {
			writeError(w, http.StatusInternalServerError, "the catalog could not be written")
			return
		}
		writeBody(w, r, "application/json", b)
	})
}
