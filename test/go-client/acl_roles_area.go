package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// The ACL roles and one-time tokens: a role of a policy that reads default, a token linked to it
// that may do what the policy allows and no more, and a one-time token exchanged once.
func init() {
	area("acl_roles", func(p *program) {
		c := p.client
		roles := c.ACLRoles()
		p.call("ACLPolicies.Upsert for a role", func() error {
			_, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "role-reader", Rules: `namespace "default" { policy = "read" }`}, nil)
			return err
		})
		var role *api.ACLRole
		p.call("ACLRoles.Create", func() error {
			created, _, err := roles.Create(&api.ACLRole{Name: "readers", Description: "read default", Policies: []*api.ACLRolePolicyLink{{Name: "role-reader"}}}, nil)
			if err == nil && (created.ID == "" || created.Name != "readers" || len(created.Policies) != 1 || created.Policies[0].Name != "role-reader" || created.CreateIndex == 0) {
				err = fmt.Errorf("created %+v", created)
			}
			role = created
			return err
		})
		if role == nil {
			return
		}
		p.call("ACLRoles.Create same name (400)", func() error {
			_, _, err := roles.Create(&api.ACLRole{Name: "readers", Policies: []*api.ACLRolePolicyLink{{Name: "role-reader"}}}, nil)
			return refused(err, 400)
		})
		p.call("ACLRoles.Create unknown policy (400)", func() error {
			_, _, err := roles.Create(&api.ACLRole{Name: "nobody", Policies: []*api.ACLRolePolicyLink{{Name: "no-such-policy"}}}, nil)
			return refused(err, 400)
		})
		p.call("ACLRoles.List", func() error {
			list, _, err := roles.List(nil)
			if err == nil && (len(list) != 1 || list[0].ID != role.ID) {
				err = fmt.Errorf("%d roles", len(list))
			}
			return err
		})
		p.call("ACLRoles.Get", func() error {
			got, _, err := roles.Get(role.ID, nil)
			if err == nil && (got.Name != role.Name || got.ModifyIndex != role.ModifyIndex) {
				err = fmt.Errorf("got %+v", got)
			}
			return err
		})
		p.call("ACLRoles.GetByName", func() error {
			got, _, err := roles.GetByName("readers", nil)
			if err == nil && got.ID != role.ID {
				err = fmt.Errorf("got %s", got.ID)
			}
			return err
		})
		p.call("ACLRoles.Update", func() error {
			update := *role
			update.Description = "reads the default namespace"
			got, _, err := roles.Update(&update, nil)
			if err == nil && (got.ID != role.ID || got.Description != update.Description || got.CreateIndex != role.CreateIndex || got.ModifyIndex <= role.ModifyIndex) {
				err = fmt.Errorf("got %+v", got)
			}
			return err
		})

		var holder *api.ACLToken
		p.call("ACLTokens.Create with a role", func() error {
			created, _, err := c.ACLTokens().Create(&api.ACLToken{Name: "role holder", Type: "client", Roles: []*api.ACLTokenRoleLink{{Name: "readers"}}}, nil)
			if err == nil && (len(created.Roles) != 1 || created.Roles[0].ID != role.ID || created.Roles[0].Name != "readers") {
				err = fmt.Errorf("roles %+v", created.Roles)
			}
			holder = created
			return err
		})
		if holder == nil {
			return
		}
		limited, err := api.NewClient(&api.Config{Address: p.addr, SecretID: holder.SecretID})
		if err != nil {
			p.call("api.NewClient with the role token", func() error { return err })
			return
		}
		inDefault, _, _ := c.Jobs().List(nil)
		p.call("Jobs.List with a role token", func() error {
			list, _, err := limited.Jobs().List(nil)
			if err == nil && (len(list) == 0 || strings.Join(ids(list), ",") != strings.Join(ids(inDefault), ",")) {
				err = fmt.Errorf("role token %v, management %v", ids(list), ids(inDefault))
			}
			return err
		})
		p.call("Jobs.Info in prod with a role token (403)", func() error {
			_, _, err := limited.Jobs().Info("api", &api.QueryOptions{Namespace: "prod"})
			return refused(err, 403)
		})
		p.call("Jobs.Register with a role token (403)", func() error {
			_, _, err := limited.Jobs().Register(batchJob("by-role"), nil)
			return refused(err, 403)
		})
		p.call("ACLRoles.Get with the role token", func() error {
			got, _, err := limited.ACLRoles().Get(role.ID, nil)
			if err == nil && got.Name != "readers" {
				err = fmt.Errorf("name %q", got.Name)
			}
			return err
		})
		p.call("ACLRoles.Create with the role token (403)", func() error {
			_, _, err := limited.ACLRoles().Create(&api.ACLRole{Name: "mine", Policies: []*api.ACLRolePolicyLink{{Name: "role-reader"}}}, nil)
			return refused(err, 403)
		})

		var ott *api.OneTimeToken
		p.call("ACLTokens.UpsertOneTimeToken", func() error {
			got, _, err := limited.ACLTokens().UpsertOneTimeToken(nil)
			if err == nil && (got.AccessorID != holder.AccessorID || got.OneTimeSecretID == "" || got.ExpiresAt.IsZero()) {
				err = fmt.Errorf("one-time token %+v", got)
			}
			ott = got
			return err
		})
		if ott != nil {
			p.call("ACLTokens.ExchangeOneTimeToken", func() error {
				got, _, err := c.ACLTokens().ExchangeOneTimeToken(ott.OneTimeSecretID, nil)
				if err == nil && (got.AccessorID != holder.AccessorID || got.SecretID != holder.SecretID) {
					err = fmt.Errorf("token %s", got.AccessorID)
				}
				return err
			})
			p.call("ACLTokens.ExchangeOneTimeToken twice (403)", func() error {
				_, _, err := c.ACLTokens().ExchangeOneTimeToken(ott.OneTimeSecretID, nil)
				return refused(err, 403)
			})
		}

		p.call("ACLRoles.Delete", func() error {
			_, err := roles.Delete(role.ID, nil)
			if err != nil {
				return err
			}
			if _, _, err := roles.Get(role.ID, nil); refused(err, 404) != nil {
				return errors.New("the role is still there")
			}
			return nil
		})
		p.call("Jobs.List with a deleted role's token (403)", func() error {
			_, _, err := limited.Jobs().List(nil)
			return refused(err, 403)
		})
	})
}
