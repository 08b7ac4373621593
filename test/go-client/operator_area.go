package main

import (
	"fmt"
	"time"

	"github.com/hashicorp/nomad/api"
)

// The operator's surface: the scheduler configuration (read, check-and-set with a stale and a
// current index), evaluations deleted while the eval broker is paused, the system's garbage
// collection and summary reconciliation, node pools and scaling policies; the Raft configuration,
// the autopilot configuration (check-and-set) and health, and the community edition's license.
func init() {
	area("operator", func(p *program) {
		c := p.client
		op, jobs, evals := c.Operator(), c.Jobs(), c.Evaluations()

		var config *api.SchedulerConfiguration
		p.call("Operator.SchedulerGetConfiguration", func() error {
			resp, meta, err := op.SchedulerGetConfiguration(nil)
			if err != nil {
				return err
			}
			if resp.SchedulerConfig == nil || resp.SchedulerConfig.SchedulerAlgorithm != "binpack" || meta.LastIndex == 0 {
				return fmt.Errorf("configuration %+v at index %d", resp.SchedulerConfig, meta.LastIndex)
			}
			config = resp.SchedulerConfig
			return nil
		})
		p.call("Operator.SchedulerCASConfiguration(stale)", func() error {
			stale := *config
			stale.ModifyIndex = config.ModifyIndex + 1000
			stale.MemoryOversubscriptionEnabled = true
			resp, _, err := op.SchedulerCASConfiguration(&stale, nil)
			if err != nil {
				return err
			}
			if resp.Updated {
				return fmt.Errorf("a stale index updated the configuration")
			}
			return nil
		})
		p.call("Operator.SchedulerCASConfiguration", func() error {
			paused := *config
			paused.PauseEvalBroker = true
			resp, wm, err := op.SchedulerCASConfiguration(&paused, nil)
			if err != nil {
				return err
			}
			got, _, err := op.SchedulerGetConfiguration(nil)
			if err != nil {
				return err
			}
			if !resp.Updated || wm.LastIndex == 0 || !got.SchedulerConfig.PauseEvalBroker || got.SchedulerConfig.ModifyIndex != wm.LastIndex {
				return fmt.Errorf("updated %v at %d, then %+v", resp.Updated, wm.LastIndex, got.SchedulerConfig)
			}
			return nil
		})

		// A purged job's evaluation is safe to delete while the broker is paused.
		p.call("Evaluations.Delete", func() error {
			resp, _, err := jobs.Register(serviceJob("purged", "purged:1", 1), nil)
			if err != nil {
				return err
			}
			if _, _, err := jobs.Deregister("purged", true, nil); err != nil {
				return err
			}
			if _, err := evals.Delete([]string{resp.EvalID}, nil); err != nil {
				return err
			}
			return refused(func() error { _, _, err := evals.Info(resp.EvalID, nil); return err }(), 404)
		})
		p.call("Evaluations.DeleteOpts", func() error {
			resp, _, err := evals.DeleteOpts(&api.EvalDeleteRequest{Filter: `JobID == "no-such-job"`}, nil)
			if err != nil {
				return err
			}
			if resp.Count != 0 {
				return fmt.Errorf("deleted %d evaluations of no job", resp.Count)
			}
			return nil
		})
		p.call("Operator.SchedulerSetConfiguration", func() error {
			resp, _, err := op.SchedulerSetConfiguration(&api.SchedulerConfiguration{SchedulerAlgorithm: "binpack", PreemptionConfig: api.PreemptionConfig{SystemSchedulerEnabled: true}}, nil)
			if err != nil {
				return err
			}
			if !resp.Updated {
				return fmt.Errorf("not updated")
			}
			return nil
		})

		p.call("System.GarbageCollect", func() error {
			if _, _, err := jobs.Register(serviceJob("collected", "collected:1", 1), nil); err != nil {
				return err
			}
			if _, _, err := jobs.Deregister("collected", false, nil); err != nil {
				return err
			}
			if err := p.advance("2s"); err != nil {
				return err
			}
			if err := c.System().GarbageCollect(); err != nil {
				return err
			}
			if _, _, err := jobs.Info("web", nil); err != nil {
				return fmt.Errorf("a live job was collected: %v", err)
			}
			return refused(func() error { _, _, err := jobs.Info("collected", nil); return err }(), 404)
		})
		p.call("System.ReconcileSummaries", func() error {
			if err := c.System().ReconcileSummaries(); err != nil {
				return err
			}
			summary, _, err := jobs.Summary("web", nil)
			if err != nil {
				return err
			}
			if _, ok := summary.Summary["web"]; !ok {
				return fmt.Errorf("summary %+v", summary.Summary)
			}
			return nil
		})

		pools := c.NodePools()
		p.call("NodePools.Register", func() error {
			_, err := pools.Register(&api.NodePool{Name: "gpu", Description: "GPUs", Meta: map[string]string{"team": "ml"}}, nil)
			return err
		})
		p.call("NodePools.Info", func() error {
			pool, _, err := pools.Info("gpu", nil)
			if err != nil {
				return err
			}
			if pool.Description != "GPUs" || pool.Meta["team"] != "ml" {
				return fmt.Errorf("pool %+v", pool)
			}
			return nil
		})
		p.call("NodePools.List", func() error {
			list, _, err := pools.List(nil)
			if err != nil {
				return err
			}
			names := []string{}
			for _, pool := range list {
				names = append(names, pool.Name)
			}
			if fmt.Sprint(names) != "[all default gpu]" {
				return fmt.Errorf("pools %v", names)
			}
			return nil
		})
		p.call("NodePools.ListNodes", func() error {
			nodes, _, err := pools.ListNodes("default", nil)
			if err != nil {
				return err
			}
			if len(nodes) != 3 {
				return fmt.Errorf("%d nodes in the default pool", len(nodes))
			}
			return nil
		})
		p.call("NodePools.ListJobs", func() error {
			stubs, _, err := pools.ListJobs("default", nil)
			if err != nil {
				return err
			}
			for _, stub := range stubs {
				if stub.ID == "web" {
					return nil
				}
			}
			return fmt.Errorf("web not among the default pool's %d jobs", len(stubs))
		})
		p.call("NodePools.Delete", func() error {
			if _, err := pools.Delete("gpu", nil); err != nil {
				return err
			}
			return refused(func() error { _, _, err := pools.Info("gpu", nil); return err }(), 404)
		})

		p.call("Operator.RaftGetConfiguration", func() error {
			config, err := op.RaftGetConfiguration(nil)
			if err != nil {
				return err
			}
			if len(config.Servers) != 1 || !config.Servers[0].Leader || !config.Servers[0].Voter || config.Servers[0].RaftProtocol != "3" || config.Servers[0].ID == "" {
				return fmt.Errorf("configuration %+v", config.Servers)
			}
			return nil
		})
		p.call("Operator.RaftRemovePeerByID(unknown)", func() error {
			return refused(op.RaftRemovePeerByID("no-such-peer", nil), 400)
		})
		p.call("Operator.AutopilotServerHealth", func() error {
			health, _, err := op.AutopilotServerHealth(nil)
			if err != nil {
				return err
			}
			if !health.Healthy || health.FailureTolerance != 0 || len(health.Servers) != 1 || !health.Servers[0].Leader || health.Servers[0].SerfStatus != "alive" || health.Leader != health.Servers[0].ID || health.Servers[0].StableSince.IsZero() {
				return fmt.Errorf("health %+v", health)
			}
			return nil
		})
		var autopilot *api.AutopilotConfiguration
		p.call("Operator.AutopilotGetConfiguration", func() error {
			config, _, err := op.AutopilotGetConfiguration(nil)
			if err != nil {
				return err
			}
			if !config.CleanupDeadServers || config.LastContactThreshold != 200*time.Millisecond || config.ServerStabilizationTime != 10*time.Second || config.MaxTrailingLogs != 250 || config.ModifyIndex == 0 {
				return fmt.Errorf("configuration %+v", config)
			}
			autopilot = config
			return nil
		})
		p.call("Operator.AutopilotCASConfiguration(stale)", func() error {
			stale := *autopilot
			stale.ModifyIndex = autopilot.ModifyIndex + 1000
			stale.CleanupDeadServers = false
			updated, _, err := op.AutopilotCASConfiguration(&stale, nil)
			if err != nil {
				return err
			}
			if updated {
				return fmt.Errorf("a stale index updated the configuration")
			}
			return nil
		})
		p.call("Operator.AutopilotCASConfiguration", func() error {
			changed := *autopilot
			changed.CleanupDeadServers = false
			changed.LastContactThreshold = 1500 * time.Millisecond
			updated, _, err := op.AutopilotCASConfiguration(&changed, nil)
			if err != nil {
				return err
			}
			got, _, err := op.AutopilotGetConfiguration(nil)
			if err != nil {
				return err
			}
			if !updated || got.CleanupDeadServers || got.LastContactThreshold != 1500*time.Millisecond || got.ModifyIndex <= autopilot.ModifyIndex {
				return fmt.Errorf("updated %v, then %+v", updated, got)
			}
			return nil
		})
		p.call("Operator.AutopilotSetConfiguration", func() error {
			if _, err := op.AutopilotSetConfiguration(autopilot, nil); err != nil {
				return err
			}
			got, _, err := op.AutopilotGetConfiguration(nil)
			if err != nil {
				return err
			}
			if !got.CleanupDeadServers || got.LastContactThreshold != 200*time.Millisecond {
				return fmt.Errorf("configuration %+v", got)
			}
			return nil
		})
		p.call("Operator.LicenseGet", func() error {
			// The community edition answers 204, which the client reads as this error.
			if _, _, err := op.LicenseGet(nil); err == nil || err.Error() != "Nomad Enterprise only endpoint" {
				return fmt.Errorf("license: %v", err)
			}
			return nil
		})

		scaling := c.Scaling()
		var policyID string
		p.call("Scaling.ListPolicies", func() error {
			job := serviceJob("scaled", "scaled:1", 1)
			max := int64(4)
			job.TaskGroups[0].Scaling = &api.ScalingPolicy{Max: &max}
			if _, _, err := jobs.Register(job, nil); err != nil {
				return err
			}
			list, _, err := scaling.ListPolicies(nil)
			if err != nil {
				return err
			}
			for _, stub := range list {
				if stub.Target["Job"] == "scaled" && stub.Target["Group"] == "web" && stub.Type == "horizontal" && stub.Enabled {
					policyID = stub.ID
					return nil
				}
			}
			return fmt.Errorf("no policy of the scaled job among %d", len(list))
		})
		p.call("Scaling.GetPolicy", func() error {
			policy, _, err := scaling.GetPolicy(policyID, nil)
			if err != nil {
				return err
			}
			if policy.Max == nil || *policy.Max != 4 || policy.Min == nil || *policy.Min != 1 {
				return fmt.Errorf("policy %+v", policy)
			}
			return nil
		})
	})
}
