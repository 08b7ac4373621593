package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// parseJobspec is a jobspec with a variable, a local and a run-time reference.
const parseJobspec = `variable "image" {
  type    = string
  default = "nginx:1"
}

locals {
  port = "http"
}

job "parsed" {
  datacenters = ["dc1"]
  group "web" {
    count = 2
    network {
      port "http" {}
    }
    task "server" {
      driver = "docker"
      config {
        image = var.image
        ports = [local.port]
      }
      env {
        ALLOC = "${NOMAD_ALLOC_ID}"
      }
      restart {
        delay = "25s"
      }
    }
  }
}
`

// The jobspec's parse (PUT /v1/jobs/parse) and a job's validation (PUT /v1/validate/job).
func init() {
	area("parse", func(p *program) {
		jobs := p.client.Jobs()
		p.call("Jobs.ParseHCLOpts variables", func() error {
			job, err := jobs.ParseHCLOpts(&api.JobsParseRequest{JobHCL: parseJobspec, Variables: `image = "redis:7"`})
			if err != nil {
				return err
			}
			task := job.TaskGroups[0].Tasks[0]
			switch {
			case *job.ID != "parsed" || *job.Name != "parsed" || job.Namespace != nil:
				return fmt.Errorf("job %q %q namespace %v", *job.ID, *job.Name, job.Namespace)
			case *job.TaskGroups[0].Name != "web" || *job.TaskGroups[0].Count != 2:
				return fmt.Errorf("group %q count %d", *job.TaskGroups[0].Name, *job.TaskGroups[0].Count)
			case task.Config["image"] != "redis:7":
				return fmt.Errorf("image %v", task.Config["image"])
			case task.Env["ALLOC"] != "${NOMAD_ALLOC_ID}":
				return fmt.Errorf("env %v", task.Env)
			case task.RestartPolicy == nil || task.RestartPolicy.Delay == nil || task.RestartPolicy.Delay.Seconds() != 25:
				return fmt.Errorf("restart %+v", task.RestartPolicy)
			case len(job.TaskGroups[0].Networks) != 1 || len(job.TaskGroups[0].Networks[0].DynamicPorts) != 1 || job.TaskGroups[0].Networks[0].DynamicPorts[0].Label != "http":
				return fmt.Errorf("networks %+v", job.TaskGroups[0].Networks)
			case task.Resources != nil:
				return errors.New("resources set without Canonicalize")
			}
			return nil
		})
		p.call("Jobs.ParseHCLOpts canonicalize", func() error {
			job, err := jobs.ParseHCLOpts(&api.JobsParseRequest{JobHCL: parseJobspec, Canonicalize: true})
			if err != nil {
				return err
			}
			task := job.TaskGroups[0].Tasks[0]
			switch {
			case job.Namespace == nil || *job.Namespace != "default" || *job.Type != "service" || *job.Priority != 50:
				return fmt.Errorf("namespace %v type %v priority %v", job.Namespace, job.Type, job.Priority)
			case task.Config["image"] != "nginx:1":
				return fmt.Errorf("image %v", task.Config["image"])
			case task.Resources == nil || *task.Resources.CPU != 100 || *task.Resources.MemoryMB != 300:
				return fmt.Errorf("resources %+v", task.Resources)
			}
			return nil
		})
		p.call("Jobs.ParseHCL bad HCL", func() error {
			_, err := jobs.ParseHCL(`job "broken" {`, false)
			if err := refused(err, 400); err != nil {
				return err
			}
			if !strings.Contains(err.Error(), "Failed to parse job: input.hcl:1,14-15: Unclosed configuration block") {
				return fmt.Errorf("reason: %v", err)
			}
			return nil
		})
		p.call("Jobs.ParseHCL unsupported function", func() error {
			_, err := jobs.ParseHCL("job \"f\" {\n  name = upper(\"f\")\n}\n", false)
			if err := refused(err, 400); err != nil {
				return err
			}
			if !strings.Contains(err.Error(), "input.hcl:2,10: Unsupported expression") {
				return fmt.Errorf("reason: %v", err)
			}
			return nil
		})
		p.call("Jobs.Validate valid", func() error {
			resp, _, err := jobs.Validate(serviceJob("validated", "x", 1), nil)
			if err == nil && (len(resp.ValidationErrors) != 0 || resp.Error != "" || !resp.DriverConfigValidated) {
				err = fmt.Errorf("errors %q %q validated %v", resp.ValidationErrors, resp.Error, resp.DriverConfigValidated)
			}
			return err
		})
		p.call("Jobs.Validate invalid", func() error {
			job := serviceJob("invalid", "x", 1)
			job.Priority = ptr(101)
			job.TaskGroups[0].Tasks[0].Driver = ""
			resp, _, err := jobs.Validate(job, nil)
			if err != nil {
				return err
			}
			if len(resp.ValidationErrors) != 2 || !strings.Contains(resp.ValidationErrors[0], "Missing task driver") || resp.ValidationErrors[1] != "job priority must be between [1, 100]" {
				return fmt.Errorf("errors %q", resp.ValidationErrors)
			}
			if !strings.HasPrefix(resp.Error, "2 errors occurred:") {
				return fmt.Errorf("error %q", resp.Error)
			}
			return nil
		})
	})
}
