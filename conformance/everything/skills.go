package main

import (
	"embed"
	"io/fs"

	"github.com/ferry-mcp/ferry"
)

// skillFiles holds the skills the sep-2640-skills-* scenarios of the
// conformance suite (0.2.0-alpha.12, io.modelcontextprotocol/skills)
// list, read and walk: one with a subdirectory of references and one of
// scripts, for the directory read.
//
//go:embed skills
var skillFiles embed.FS

// addSkills serves the fixture's skills: those of skills/, and one the
// server writes about its task tools.
func addSkills(srv *ferry.Server) {
	sub, err := fs.Sub(skillFiles, "skills")
	if err != nil {
		panic(err) // the embedded directory is there: a build without it does not compile
	}
	srv.AddSkills(sub, ferry.Skill{})
	srv.AddToolSkill(ferry.ToolSkill{Name: "task-tools", Tools: []string{"greet", "slow_compute", "failing_job", "confirm_delete"},
		Instructions: "The fixture's tools of the tasks extension: slow_compute and failing_job run as tasks for a client that declared it."})
}
