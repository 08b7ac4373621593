package main

import (
	"fmt"

	"github.com/hashicorp/nomad/api"
)

// servicesJob is a service job whose group registers "gosvc" (port "http") with the nomad provider.
func servicesJob(id string) *api.Job {
	job := api.NewServiceJob(id, id, "global", 50).AddDatacenter("dc1")
	group := api.NewTaskGroup("svc", 1).AddTask(api.NewTask("server", "docker").SetConfig("image", "svc:1"))
	group.Networks = []*api.NetworkResource{{DynamicPorts: []api.Port{{Label: "http"}}}}
	group.Services = []*api.Service{{Name: "gosvc", PortLabel: "http", Provider: "nomad", Tags: []string{"go", "area"}}}
	return job.AddTaskGroup(group)
}

func init() {
	area("services", func(p *program) {
		c := p.client
		var alloc *api.AllocationListStub
		p.step("services: a job with a nomad service running", func() error {
			if _, _, err := c.Jobs().Register(servicesJob("svcjob"), nil); err != nil {
				return err
			}
			if err := p.advance("10s"); err != nil {
				return err
			}
			allocs, _, err := c.Jobs().Allocations("svcjob", false, nil)
			if err != nil {
				return err
			}
			for _, each := range allocs {
				if each.ClientStatus == "running" {
					alloc = each
				}
			}
			if alloc == nil {
				return fmt.Errorf("no running allocation of svcjob: %d allocations", len(allocs))
			}
			return nil
		})
		if alloc == nil {
			return
		}
		wantID := "_nomad-task-" + alloc.ID + "-group-svc-gosvc-http"
		var instance *api.ServiceRegistration
		p.call("Services.List", func() error {
			stubs, meta, err := c.Services().List(nil)
			if err != nil {
				return err
			}
			if meta.LastIndex == 0 {
				return fmt.Errorf("no index")
			}
			for _, stub := range stubs {
				for _, service := range stub.Services {
					if stub.Namespace == "default" && service.ServiceName == "gosvc" && len(service.Tags) == 2 && service.Tags[0] == "area" && service.Tags[1] == "go" {
						return nil
					}
				}
			}
			return fmt.Errorf("gosvc with tags [area go] not listed: %+v", stubs)
		})
		p.call("Services.Get", func() error {
			instances, _, err := c.Services().Get("gosvc", nil)
			if err != nil {
				return err
			}
			if len(instances) != 1 || instances[0].ID != wantID || instances[0].AllocID != alloc.ID || instances[0].JobID != "svcjob" || instances[0].Port <= 0 || instances[0].NodeID != alloc.NodeID {
				return fmt.Errorf("want one instance %s, got %+v", wantID, instances)
			}
			instance = instances[0]
			return nil
		})
		p.call("Jobs.Services", func() error {
			instances, _, err := c.Jobs().Services("svcjob", nil)
			if err != nil {
				return err
			}
			if len(instances) != 1 || instances[0].ID != wantID {
				return fmt.Errorf("want %s, got %+v", wantID, instances)
			}
			_, _, err = c.Jobs().Services("no-such-job", nil)
			return refused(err, 404)
		})
		p.call("Allocations.Services", func() error {
			instances, _, err := c.Allocations().Services(alloc.ID, nil)
			if err != nil {
				return err
			}
			if len(instances) != 1 || instances[0].ServiceName != "gosvc" || instances[0].Address == "" && instances[0].Port == 0 {
				return fmt.Errorf("want gosvc, got %+v", instances)
			}
			return nil
		})
		p.call("Services.Delete", func() error {
			if instance == nil {
				return fmt.Errorf("no instance to delete")
			}
			meta, err := c.Services().Delete("gosvc", instance.ID, nil)
			if err != nil {
				return err
			}
			if meta.LastIndex <= instance.ModifyIndex {
				return fmt.Errorf("index %d not past the registration's %d", meta.LastIndex, instance.ModifyIndex)
			}
			left, _, err := c.Services().Get("gosvc", nil)
			if err != nil {
				return err
			}
			if len(left) != 0 {
				return fmt.Errorf("still there: %+v", left)
			}
			_, err = c.Services().Delete("gosvc", instance.ID, nil)
			return refused(err, 404)
		})
	})
}
