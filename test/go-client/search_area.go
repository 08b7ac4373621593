package main

import (
	"fmt"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/nomad/api/contexts"
)

func init() {
	area("search", func(p *program) {
		c := p.client
		p.call("Search.PrefixSearch", func() error {
			resp, meta, err := c.Search().PrefixSearch("we", contexts.Jobs, nil)
			if err != nil {
				return err
			}
			if meta.LastIndex == 0 {
				return fmt.Errorf("no index")
			}
			found := false
			for _, id := range resp.Matches[contexts.Jobs] {
				found = found || id == "web"
			}
			if !found || resp.Truncations[contexts.Jobs] {
				return fmt.Errorf("want web among the jobs, untruncated: %+v", resp)
			}
			all, _, err := c.Search().PrefixSearch("pro", contexts.All, nil)
			if err != nil {
				return err
			}
			if ns := all.Matches[contexts.Namespaces]; len(ns) != 1 || ns[0] != "prod" {
				return fmt.Errorf("want namespace prod, got %+v", all.Matches)
			}
			if _, ok := all.Matches[contexts.Allocs]; ok {
				return fmt.Errorf("a prefix no UUID has searched allocations: %+v", all.Matches)
			}
			_, _, err = c.Search().PrefixSearch("x", contexts.Context("widgets"), nil)
			return refused(err, 400)
		})
		p.call("Search.FuzzySearch", func() error {
			resp, _, err := c.Search().FuzzySearch("serv", contexts.All, nil)
			if err != nil {
				return err
			}
			var task *api.FuzzyMatch
			for i, match := range resp.Matches[contexts.Tasks] {
				if match.ID == "server" && len(match.Scope) == 3 && match.Scope[0] == "default" && match.Scope[1] == "web" && match.Scope[2] == "web" {
					task = &resp.Matches[contexts.Tasks][i]
				}
			}
			if task == nil {
				return fmt.Errorf("want task server of default/web/web, got %+v", resp.Matches)
			}
			if truncated, ok := resp.Truncations[contexts.Jobs]; !ok || truncated {
				return fmt.Errorf("want jobs searched and untruncated: %+v", resp.Truncations)
			}
			_, _, err = c.Search().FuzzySearch("s", contexts.All, nil)
			return refused(err, 400)
		})
	})
}
