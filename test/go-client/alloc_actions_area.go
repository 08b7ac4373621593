package main

import (
	"fmt"
	"time"

	"github.com/hashicorp/nomad/api"
)

// allocActionsJob is a service job of one allocation whose group has tasks "web" and "side", and a
// nomad service with an HTTP check, so that the allocation has something to restart, signal,
// measure and check.
func allocActionsJob(id string) *api.Job {
	job := api.NewServiceJob(id, id, "global", 50).AddDatacenter("dc1")
	web := api.NewTask("web", "docker").SetConfig("image", "web:1").Require(&api.Resources{CPU: intPtr(500), MemoryMB: intPtr(256)})
	side := api.NewTask("side", "docker").SetConfig("image", "side:1")
	group := api.NewTaskGroup("g", 1).AddTask(web).AddTask(side)
	group.Networks = []*api.NetworkResource{{DynamicPorts: []api.Port{{Label: "http"}}}}
	interval, timeout := 10*time.Second, 2*time.Second
	group.Services = []*api.Service{{Name: "actions", PortLabel: "http", Provider: "nomad", Checks: []api.ServiceCheck{{Name: "alive", Type: "http", Path: "/health", Interval: interval, Timeout: timeout}}}}
	return job.AddTaskGroup(group)
}

func intPtr(n int) *int { return &n }

func init() {
	area("alloc actions", func(p *program) {
		c := p.client
		var alloc *api.Allocation
		p.step("alloc actions: a job of two tasks running", func() error {
			if _, _, err := c.Jobs().Register(allocActionsJob("actionsjob"), nil); err != nil {
				return err
			}
			if err := p.advance("2s"); err != nil {
				return err
			}
			stubs, _, err := c.Jobs().Allocations("actionsjob", false, nil)
			if err != nil {
				return err
			}
			for _, each := range stubs {
				if each.ClientStatus == "running" {
					alloc, _, err = c.Allocations().Info(each.ID, nil)
					return err
				}
			}
			return fmt.Errorf("no running allocation of actionsjob: %d allocations", len(stubs))
		})
		if alloc == nil {
			return
		}
		taskState := func(task string) (*api.TaskState, error) {
			read, _, err := c.Allocations().Info(alloc.ID, nil)
			if err != nil {
				return nil, err
			}
			state := read.TaskStates[task]
			if state == nil {
				return nil, fmt.Errorf("no task state of %s: %+v", task, read.TaskStates)
			}
			return state, nil
		}
		p.call("Allocations.Restart", func() error {
			if err := c.Allocations().Restart(alloc, "web", nil); err != nil {
				return err
			}
			web, err := taskState("web")
			if err != nil {
				return err
			}
			last := web.Events[len(web.Events)-1]
			if web.Restarts != 1 || web.State != "running" || last.Type != "Started" || web.Events[len(web.Events)-4].Type != "Restart Signaled" {
				return fmt.Errorf("want web restarted once, got Restarts %d, State %s, events %d", web.Restarts, web.State, len(web.Events))
			}
			side, err := taskState("side")
			if err != nil {
				return err
			}
			if side.Restarts != 0 {
				return fmt.Errorf("side restarted too: %d", side.Restarts)
			}
			return nil
		})
		p.call("Allocations.Restart unknown task (404)", func() error {
			return refused(c.Allocations().Restart(alloc, "nope", nil), 404)
		})
		p.call("Allocations.RestartAllTasks", func() error {
			if err := c.Allocations().RestartAllTasks(alloc, nil); err != nil {
				return err
			}
			for task, want := range map[string]uint64{"web": 2, "side": 1} {
				state, err := taskState(task)
				if err != nil {
					return err
				}
				if state.Restarts != want {
					return fmt.Errorf("%s: want %d restarts, got %d", task, want, state.Restarts)
				}
			}
			return nil
		})
		p.call("Allocations.Signal", func() error {
			if err := c.Allocations().Signal(alloc, nil, "web", "SIGHUP"); err != nil {
				return err
			}
			web, err := taskState("web")
			if err != nil {
				return err
			}
			last := web.Events[len(web.Events)-1]
			if last.Type != "Signaling" || last.TaskSignal != "SIGHUP" || web.State != "running" {
				return fmt.Errorf("want a Signaling event of SIGHUP on a running task, got %s %q (%s)", last.Type, last.TaskSignal, web.State)
			}
			return nil
		})
		p.call("Allocations.Signal unknown task (404)", func() error {
			return refused(c.Allocations().Signal(alloc, nil, "nope", "SIGHUP"), 404)
		})
		p.call("Allocations.Stats", func() error {
			usage, err := c.Allocations().Stats(alloc, nil)
			if err != nil {
				return err
			}
			web := usage.Tasks["web"]
			if web == nil || usage.Tasks["side"] == nil || usage.Timestamp == 0 {
				return fmt.Errorf("want both tasks measured, got %+v", usage.Tasks)
			}
			rss := web.ResourceUsage.MemoryStats.RSS
			if rss == 0 || rss > 256*1024*1024 || web.ResourceUsage.CpuStats.TotalTicks <= 0 || web.ResourceUsage.CpuStats.TotalTicks > 500 {
				return fmt.Errorf("web's use is not within its resources: RSS %d, ticks %f", rss, web.ResourceUsage.CpuStats.TotalTicks)
			}
			if usage.ResourceUsage.MemoryStats.RSS != rss+usage.Tasks["side"].ResourceUsage.MemoryStats.RSS {
				return fmt.Errorf("the allocation's RSS is not its tasks' sum")
			}
			return nil
		})
		p.call("Allocations.Checks", func() error {
			checks, err := c.Allocations().Checks(alloc.ID, nil)
			if err != nil {
				return err
			}
			if len(checks) != 1 {
				return fmt.Errorf("want one check, got %+v", checks)
			}
			for id, check := range checks {
				if check.ID != id || check.Check != "alive" || check.Service != "actions" || check.Status != "success" || check.StatusCode != 200 || check.Output != "nomad: http ok" {
					return fmt.Errorf("want alive succeeding, got %+v", check)
				}
			}
			return nil
		})
		p.call("Nodes.Stats", func() error {
			host, err := c.Nodes().Stats(alloc.NodeID, nil)
			if err != nil {
				return err
			}
			if host.Memory == nil || host.Memory.Total != 16384*1024*1024 || len(host.CPU) != 4 || host.AllocDirStats == nil || host.CPUTicksConsumed <= 0 {
				return fmt.Errorf("unexpected host stats: %+v", host)
			}
			return nil
		})
		p.call("Allocations.GC running (409)", func() error {
			return refused(c.Allocations().GC(alloc, nil), 409)
		})
		p.step("alloc actions: the allocation stopped", func() error {
			if _, err := c.Allocations().Stop(alloc, nil); err != nil {
				return err
			}
			return p.advance("2s")
		})
		// The reference answers a collection with an empty body, gzipped for a client that takes gzip
		// (its CompressHandler), which these calls of its client then fail to decode (EOF): the
		// collection is done all the same, as the second call's refusal (409) shows.
		p.call("Allocations.GC", func() error {
			if err := c.Allocations().GC(alloc, nil); err == nil || err.Error() != "EOF" {
				return fmt.Errorf("want the client's own EOF on the empty answer, got %v", err)
			}
			return refused(c.Allocations().GC(alloc, nil), 409)
		})
		p.call("Nodes.GC", func() error {
			if err := c.Nodes().GC(alloc.NodeID, nil); err == nil || err.Error() != "EOF" {
				return fmt.Errorf("want the client's own EOF on the empty answer, got %v", err)
			}
			return refused(c.Nodes().GC("00000000-0000-4000-8000-00000000dead", nil), 404)
		})
	})
}
