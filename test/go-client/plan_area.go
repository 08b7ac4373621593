package main

import (
	"errors"
	"fmt"

	"github.com/hashicorp/nomad/api"
)

// The plan area: a job's plan with its diff, the -check-index registration after it, and a
// registration's source read back. Its job "planned" is purged at the end.
func init() {
	area("plan", func(p *program) {
		c := p.client
		jobs := c.Jobs()
		var registered *api.JobRegisterResponse
		p.call("Jobs.RegisterOpts Submission", func() error {
			resp, _, err := jobs.RegisterOpts(serviceJob("planned", "web:1", 2), &api.RegisterOptions{Submission: &api.JobSubmission{
				Source:        `job "planned" { group "web" { count = 2 } }`,
				Format:        "hcl2",
				VariableFlags: map[string]string{"image": "web:1 a&b"},
				Variables:     "x = 1",
			}}, nil)
			if err == nil && (resp.EvalID == "" || resp.Warnings != "") {
				err = fmt.Errorf("EvalID %q, Warnings %q", resp.EvalID, resp.Warnings)
			}
			registered = resp
			return err
		})
		p.call("Jobs.Submission planned", func() error {
			sub, _, err := jobs.Submission("planned", 0, nil)
			if err != nil {
				return err
			}
			// The client escapes the flags' values; the agent answers them unescaped, as the reference.
			if sub.Source != `job "planned" { group "web" { count = 2 } }` || sub.Format != "hcl2" || sub.Variables != "x = 1" || sub.VariableFlags["image"] != "web:1 a&b" {
				return fmt.Errorf("submission %+v", sub)
			}
			return refused(func() error { _, _, err := jobs.Submission("planned", 1, nil); return err }(), 404)
		})
		var plan *api.JobPlanResponse
		p.call("Jobs.PlanOpts", func() error {
			resp, _, err := jobs.PlanOpts(serviceJob("planned", "web:2", 2), &api.PlanOptions{Diff: true}, nil)
			if err != nil {
				return err
			}
			plan = resp
			if registered == nil || resp.JobModifyIndex != registered.JobModifyIndex {
				return fmt.Errorf("JobModifyIndex %d, registered at %+v", resp.JobModifyIndex, registered)
			}
			if resp.Diff == nil || resp.Diff.Type != "Edited" || len(resp.Diff.TaskGroups) != 1 || len(resp.Diff.TaskGroups[0].Tasks) != 1 {
				return fmt.Errorf("diff %+v", resp.Diff)
			}
			if task := resp.Diff.TaskGroups[0].Tasks[0]; len(task.Annotations) != 1 || task.Annotations[0] != "forces create/destroy update" {
				return fmt.Errorf("task annotations %v", task.Annotations)
			}
			// A new image: a canary (or a replacement) once the allocations run, placements before.
			if updates := resp.Annotations.DesiredTGUpdates["web"]; updates == nil || updates.Canary+updates.DestructiveUpdate+updates.Place == 0 {
				return fmt.Errorf("desired updates %+v", updates)
			}
			return nil
		})
		p.call("Jobs.EnforceRegister after Plan", func() error {
			if plan == nil {
				return errors.New("no plan")
			}
			resp, _, err := jobs.EnforceRegister(serviceJob("planned", "web:2", 2), plan.JobModifyIndex, nil)
			if err == nil && resp.JobModifyIndex <= plan.JobModifyIndex {
				err = fmt.Errorf("JobModifyIndex %d after %d", resp.JobModifyIndex, plan.JobModifyIndex)
			}
			return err
		})
		p.call("Jobs.EnforceRegister stale after Plan", func() error {
			if plan == nil {
				return errors.New("no plan")
			}
			_, _, err := jobs.EnforceRegister(serviceJob("planned", "web:3", 2), plan.JobModifyIndex, nil)
			return refused(err, 400)
		})
		p.call("Jobs.Plan new job", func() error {
			resp, _, err := jobs.Plan(serviceJob("unplanned", "web:1", 3), true, nil)
			if err != nil {
				return err
			}
			if resp.JobModifyIndex != 0 || resp.Diff == nil || resp.Diff.Type != "Added" {
				return fmt.Errorf("JobModifyIndex %d, diff %+v", resp.JobModifyIndex, resp.Diff)
			}
			if updates := resp.Annotations.DesiredTGUpdates["web"]; updates == nil || updates.Place != 3 {
				return fmt.Errorf("desired updates %+v", updates)
			}
			// Nothing was written.
			_, _, err = jobs.Info("unplanned", nil)
			return refused(err, 404)
		})
		p.step("purge planned", func() error {
			_, _, err := jobs.Deregister("planned", true, nil)
			return err
		})
	})
}
