package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/nomad/api"
)

// The variables API: writes with check-and-set, reads, lists, deletes, a lock held, renewed and
// released, and a token whose policy's variables block grants one path only.
func init() {
	area("variables", func(p *program) {
		c := p.client
		vars := c.Variables()
		var created *api.Variable
		p.call("Variables.Create", func() error {
			v := api.NewVariable("go/app/config")
			v.Items["port"] = "8080"
			out, _, err := vars.Create(v, nil)
			if err == nil && (out.Items["port"] != "8080" || out.ModifyIndex == 0 || out.Namespace != "default") {
				err = fmt.Errorf("created %+v", out)
			}
			created = out
			return err
		})
		p.call("Variables.Read", func() error {
			got, _, err := vars.Read("go/app/config", nil)
			if err == nil && (got.Items["port"] != "8080" || created == nil || got.ModifyIndex != created.ModifyIndex) {
				err = fmt.Errorf("read %+v", got)
			}
			return err
		})
		p.call("Variables.Read missing (ErrVariablePathNotFound)", func() error {
			_, _, err := vars.Read("go/none", nil)
			if !errors.Is(err, api.ErrVariablePathNotFound) {
				return fmt.Errorf("want ErrVariablePathNotFound, got %v", err)
			}
			return nil
		})
		p.call("Variables.CheckedCreate conflict (ErrCASConflict)", func() error {
			v := api.NewVariable("go/app/config")
			v.Items["port"] = "1"
			_, _, err := vars.CheckedCreate(v, nil)
			var conflict api.ErrCASConflict
			if !errors.As(err, &conflict) {
				return fmt.Errorf("want ErrCASConflict, got %v", err)
			}
			if conflict.Conflict == nil || conflict.Conflict.Items["port"] != "8080" {
				return fmt.Errorf("conflict %+v", conflict.Conflict)
			}
			return nil
		})
		p.call("Variables.CheckedUpdate", func() error {
			if created == nil {
				return errors.New("nothing created")
			}
			v := created.Copy()
			v.Items["port"] = "9090"
			out, _, err := vars.CheckedUpdate(v, nil)
			if err == nil && (out.Items["port"] != "9090" || out.ModifyIndex <= created.ModifyIndex) {
				err = fmt.Errorf("updated %+v", out)
			}
			return err
		})
		p.call("Variables.Update", func() error {
			v := api.NewVariable("go/app/other")
			v.Items["a"] = "b"
			out, _, err := vars.Update(v, nil)
			if err == nil && out.Items["a"] != "b" {
				err = fmt.Errorf("updated %+v", out)
			}
			return err
		})
		p.call("Variables.List", func() error {
			list, _, err := vars.List(nil)
			if err == nil && len(list) < 2 {
				err = fmt.Errorf("listed %d", len(list))
			}
			return err
		})
		p.call("Variables.PrefixList", func() error {
			list, _, err := vars.PrefixList("go/app/c", nil)
			if err == nil && (len(list) != 1 || list[0].Path != "go/app/config") {
				err = fmt.Errorf("listed %+v", list)
			}
			return err
		})
		p.call("Variables.CheckedDelete conflict (ErrCASConflict)", func() error {
			_, err := vars.CheckedDelete("go/app/other", 1, nil)
			var conflict api.ErrCASConflict
			if !errors.As(err, &conflict) {
				return fmt.Errorf("want ErrCASConflict, got %v", err)
			}
			return nil
		})
		p.call("Variables.Delete", func() error {
			if _, err := vars.Delete("go/app/other", nil); err != nil {
				return err
			}
			v, _, err := vars.Peek("go/app/other", nil)
			if err == nil && v != nil {
				err = fmt.Errorf("still there: %+v", v)
			}
			return err
		})

		locker, err := c.Locks(api.WriteOptions{}, api.Variable{Path: "go/lock", Lock: &api.VariableLock{TTL: "10s", LockDelay: "5s"}})
		if err != nil {
			p.call("Client.Locks", func() error { return err })
		} else {
			ctx := context.Background()
			p.call("Locks.Acquire", func() error {
				path, err := locker.Acquire(ctx)
				if err == nil && path != "go/lock" {
					err = fmt.Errorf("acquired %q", path)
				}
				return err
			})
			p.call("Locks.Acquire held by another (ErrLockConflict)", func() error {
				other, err := c.Locks(api.WriteOptions{}, api.Variable{Path: "go/lock", Lock: &api.VariableLock{TTL: "10s"}})
				if err != nil {
					return err
				}
				_, err = other.Acquire(ctx)
				if !errors.Is(err, api.ErrLockConflict) {
					return fmt.Errorf("want ErrLockConflict, got %v", err)
				}
				return nil
			})
			p.step("advance 15s", func() error { return p.advance("15s") })
			p.call("Locks.Renew", func() error { return locker.Renew(ctx) })
			p.call("Locks.Release", func() error { return locker.Release(ctx) })
		}

		p.call("ACLPolicies.Upsert with a variables block", func() error {
			_, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "go-vars", Rules: `namespace "default" {
  variables {
    path "go/app/*" { capabilities = ["read"] }
  }
}`}, nil)
			return err
		})
		token, _, err := c.ACLTokens().Create(&api.ACLToken{Name: "go-vars", Type: "client", Policies: []string{"go-vars"}}, nil)
		if err != nil {
			p.call("ACLTokens.Create for variables", func() error { return err })
			return
		}
		limited, err := api.NewClient(&api.Config{Address: p.addr, SecretID: token.SecretID})
		if err != nil {
			p.call("api.NewClient with the variables token", func() error { return err })
			return
		}
		p.call("Variables.Read with a path's read", func() error {
			got, _, err := limited.Variables().Read("go/app/config", nil)
			if err == nil && got.Items["port"] != "9090" {
				err = fmt.Errorf("read %+v", got)
			}
			return err
		})
		p.call("Variables.Create without write (403)", func() error {
			v := api.NewVariable("go/app/new")
			v.Items["a"] = "b"
			_, _, err := limited.Variables().Create(v, nil)
			return refused(err, 403)
		})
		p.call("Variables.List lists the paths the token may list", func() error {
			list, _, err := limited.Variables().List(nil)
			if err == nil {
				for _, meta := range list {
					if len(meta.Path) < 7 || meta.Path[:7] != "go/app/" {
						return fmt.Errorf("listed %s", meta.Path)
					}
				}
				if len(list) != 1 {
					return fmt.Errorf("listed %d", len(list))
				}
			}
			return err
		})
	})
}
