// The reference's own Go client (github.com/hashicorp/nomad/api, vendored in api/) run against a
// bexpr agent in the nomad header style: every call of the client on the routes the agent serves,
// each answer decoded by the client itself, and one line printed per call, "ok <name>" or
// "fail <name>: <error>". test/go-client/go-client.test.ts starts the agent (ACLs on, the manual
// clock, three nodes, the namespace "prod"), runs this program and reads the lines.
//
// Usage: go-client -addr http://127.0.0.1:4646
//
// The agent's clock is moved over its control API (POST /_bexpr/clock/advance), so that
// allocations run and deployments become healthy when the program says, not after a wait.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
)

// healthy is how far the clock moves for placed allocations to run and pass the default
// MinHealthyTime (10 s): the test starts the agent with a placement delay of 1 s.
const healthy = "10.5s"

// blockingWait bounds each blocking query: long enough for a loaded machine, short enough that a
// query that never wakes fails the call instead of the test's timeout.
const blockingWait = 15 * time.Second

type program struct {
	addr   string
	client *api.Client
	// secret is the management token's, once bootstrapped.
	secret string
	failed int
}

func main() {
	addr := flag.String("addr", "http://127.0.0.1:4646", "the agent's address")
	flag.Parse()
	client, err := api.NewClient(&api.Config{Address: *addr})
	if err != nil {
		fmt.Printf("fail api.NewClient: %v\n", err)
		os.Exit(1)
	}
	p := &program{addr: *addr, client: client}
	p.run()
	if p.failed > 0 {
		os.Exit(1)
	}
}

// step runs a step that is not a call of the client (moving the agent's clock): a line only when it fails.
func (p *program) step(name string, f func() error) {
	if err := f(); err != nil {
		p.failed++
		fmt.Printf("fail %s: %s\n", name, err)
	}
}

// call runs one named call and prints its line.
func (p *program) call(name string, f func() error) {
	if err := f(); err != nil {
		p.failed++
		fmt.Printf("fail %s: %s\n", name, strings.ReplaceAll(err.Error(), "\n", " "))
		return
	}
	fmt.Printf("ok %s\n", name)
}

var statusPattern = regexp.MustCompile(`Unexpected response code: (\d+)`)

// statusOf is the HTTP status of a failed call, as the client reports it (0 when none).
func statusOf(err error) int {
	var unexpected *api.UnexpectedResponseError
	if errors.As(err, &unexpected) {
		return unexpected.StatusCode()
	}
	if m := statusPattern.FindStringSubmatch(err.Error()); m != nil {
		code, _ := strconv.Atoi(m[1])
		return code
	}
	return 0
}

// refused checks that a call failed with the given status.
func refused(err error, code int) error {
	if err == nil {
		return fmt.Errorf("succeeded, want %d", code)
	}
	if got := statusOf(err); got != code {
		return fmt.Errorf("want %d, got: %v", code, err)
	}
	return nil
}

// advance moves the agent's manual clock and waits for the steps due on the way.
func (p *program) advance(by string) error {
	body := fmt.Sprintf(`{"By":%q}`, by)
	req, err := http.NewRequest(http.MethodPost, p.addr+"/_bexpr/clock/advance", bytes.NewBufferString(body))
	if err != nil {
		return err
	}
	// With ACLs on, the control API wants a management token.
	req.Header.Set("X-Nomad-Token", p.secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("clock advance %s: %s", by, resp.Status)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// serviceJob is a service job of one group "web" with canary updates.
func serviceJob(id, image string, count int) *api.Job {
	job := api.NewServiceJob(id, id, "global", 50).AddDatacenter("dc1")
	group := api.NewTaskGroup("web", count).AddTask(api.NewTask("server", "docker").SetConfig("image", image))
	group.Update = &api.UpdateStrategy{MaxParallel: ptr(1), Canary: ptr(1)}
	return job.AddTaskGroup(group)
}

func batchJob(id string) *api.Job {
	job := api.NewBatchJob(id, id, "global", 50).AddDatacenter("dc1")
	return job.AddTaskGroup(api.NewTaskGroup("work", 1).AddTask(api.NewTask("run", "exec").SetConfig("command", "/bin/true")))
}

func ids(stubs []*api.JobListStub) []string {
	out := make([]string, 0, len(stubs))
	for _, stub := range stubs {
		out = append(out, stub.Namespace+"/"+stub.ID)
	}
	sort.Strings(out)
	return out
}

func (p *program) run() {
	c := p.client
	jobs, allocs, evals, deployments, nodes := c.Jobs(), c.Allocations(), c.Evaluations(), c.Deployments(), c.Nodes()

	// --- Status and agent: no token needed.
	p.call("Status.Leader", func() error {
		leader, err := c.Status().Leader()
		if err == nil && leader == "" {
			err = errors.New("no leader")
		}
		return err
	})
	p.call("Status.Peers", func() error {
		peers, err := c.Status().Peers()
		if err == nil && len(peers) == 0 {
			err = errors.New("no peers")
		}
		return err
	})
	p.call("Regions.List", func() error {
		regions, err := c.Regions().List()
		if err == nil && (len(regions) != 1 || regions[0] != "global") {
			err = fmt.Errorf("regions %v, want [global]", regions)
		}
		return err
	})

	// --- ACL bootstrap: before it, an anonymous client is refused.
	p.call("Jobs.List anonymous (403)", func() error {
		_, _, err := jobs.List(nil)
		return refused(err, 403)
	})
	var root *api.ACLToken
	p.call("ACLTokens.Bootstrap", func() error {
		var err error
		root, _, err = c.ACLTokens().Bootstrap(nil)
		if err == nil && (root.Type != "management" || root.SecretID == "") {
			err = fmt.Errorf("bootstrap token %+v", root)
		}
		return err
	})
	if root == nil {
		return
	}
	c.SetSecretID(root.SecretID)
	p.secret = root.SecretID
	p.call("ACLTokens.Bootstrap again (400)", func() error {
		_, _, err := c.ACLTokens().Bootstrap(nil)
		return refused(err, 400)
	})
	p.call("Agent.Members", func() error {
		members, err := c.Agent().Members()
		if err == nil && len(members.Members) == 0 {
			err = errors.New("no members")
		}
		return err
	})

	// --- Namespaces.
	p.call("Namespaces.Register", func() error {
		_, err := c.Namespaces().Register(&api.Namespace{Name: "staging", Description: "from the Go client"}, nil)
		return err
	})
	p.call("Namespaces.List", func() error {
		list, _, err := c.Namespaces().List(nil)
		if err == nil && len(list) != 3 {
			err = fmt.Errorf("%d namespaces, want 3 (default, prod, staging)", len(list))
		}
		return err
	})
	p.call("Namespaces.Info", func() error {
		ns, _, err := c.Namespaces().Info("staging", nil)
		if err == nil && ns.Description != "from the Go client" {
			err = fmt.Errorf("description %q", ns.Description)
		}
		return err
	})
	p.call("Namespaces.PrefixList", func() error {
		list, _, err := c.Namespaces().PrefixList("sta", nil)
		if err == nil && len(list) != 1 {
			err = fmt.Errorf("%d namespaces, want 1", len(list))
		}
		return err
	})
	p.call("Namespaces.Info unknown (404)", func() error {
		_, _, err := c.Namespaces().Info("nowhere", nil)
		return refused(err, 404)
	})

	// --- Registration of each kind of job.
	periodic := batchJob("nightly")
	periodic.Periodic = &api.PeriodicConfig{Spec: ptr("0 3 * * *"), SpecType: ptr("cron")}
	parameterized := batchJob("report")
	parameterized.ParameterizedJob = &api.ParameterizedJobConfig{Payload: "optional", MetaRequired: []string{"customer"}}
	system := api.NewSystemJob("agentd", "agentd", "global", 50).AddDatacenter("dc1")
	system.AddTaskGroup(api.NewTaskGroup("agent", 1).AddTask(api.NewTask("agent", "docker").SetConfig("image", "agent:1")))
	sysbatch := api.NewSysbatchJob("cleanup", "cleanup", "global", 50).AddDatacenter("dc1")
	sysbatch.AddTaskGroup(api.NewTaskGroup("clean", 1).AddTask(api.NewTask("clean", "exec").SetConfig("command", "/bin/true")))
	prodJob := serviceJob("api", "api:1", 1)
	prodJob.Namespace = ptr("prod")
	for _, r := range []struct {
		name string
		job  *api.Job
	}{
		{"service", serviceJob("web", "web:1", 2)},
		{"batch", batchJob("once")},
		{"system", system},
		{"sysbatch", sysbatch},
		{"periodic", periodic},
		{"parameterized", parameterized},
		{"service in namespace prod", prodJob},
	} {
		r := r
		p.call("Jobs.Register "+r.name, func() error {
			resp, meta, err := jobs.Register(r.job, nil)
			if err != nil {
				return err
			}
			if meta.LastIndex == 0 {
				return errors.New("no index")
			}
			// A periodic or parameterized job is not evaluated at registration.
			wantEval := r.job.Periodic == nil && r.job.ParameterizedJob == nil
			if wantEval != (resp.EvalID != "") {
				return fmt.Errorf("EvalID %q", resp.EvalID)
			}
			return nil
		})
	}
	p.call("Jobs.Register invalid (400)", func() error {
		_, _, err := jobs.Register(&api.Job{ID: ptr("bad"), TaskGroups: []*api.TaskGroup{}}, nil)
		return refused(err, 400)
	})
	p.step("clock: allocations placed and healthy", func() error { return p.advance(healthy) })

	// --- Job lists: filter, paging, all namespaces, prefix.
	var all []*api.JobListStub
	var listIndex uint64
	p.call("Jobs.List", func() error {
		list, meta, err := jobs.List(nil)
		if err != nil {
			return err
		}
		all, listIndex = list, meta.LastIndex
		if len(list) != 6 || !meta.KnownLeader || meta.LastIndex == 0 {
			return fmt.Errorf("%d jobs (want 6), meta %+v", len(list), meta)
		}
		return nil
	})
	p.call("Jobs.List filter", func() error {
		list, _, err := jobs.List(&api.QueryOptions{Filter: `Type == "system" or Type == "sysbatch"`})
		if err == nil && strings.Join(ids(list), ",") != "default/agentd,default/cleanup" {
			err = fmt.Errorf("filtered %v", ids(list))
		}
		return err
	})
	p.call("Jobs.List bad filter (400)", func() error {
		_, _, err := jobs.List(&api.QueryOptions{Filter: `Type ==`})
		return refused(err, 400)
	})
	p.call("Jobs.List paging", func() error {
		var paged []*api.JobListStub
		q := &api.QueryOptions{PerPage: 2}
		for pages := 1; ; pages++ {
			list, meta, err := jobs.List(q)
			if err != nil {
				return err
			}
			if len(list) > 2 {
				return fmt.Errorf("page of %d", len(list))
			}
			paged = append(paged, list...)
			if meta.NextToken == "" {
				if pages != 3 {
					return fmt.Errorf("%d pages, want 3", pages)
				}
				break
			}
			q.NextToken = meta.NextToken
		}
		if strings.Join(ids(paged), ",") != strings.Join(ids(all), ",") {
			return fmt.Errorf("pages %v, list %v", ids(paged), ids(all))
		}
		return nil
	})
	p.call("Jobs.List namespace=*", func() error {
		list, _, err := jobs.List(&api.QueryOptions{Namespace: "*"})
		if err == nil && (len(list) != 7 || ids(list)[0] != "default/agentd" || ids(list)[6] != "prod/api") {
			err = fmt.Errorf("all namespaces %v", ids(list))
		}
		return err
	})
	p.call("Jobs.List namespace prod", func() error {
		list, _, err := jobs.List(&api.QueryOptions{Namespace: "prod"})
		if err == nil && strings.Join(ids(list), ",") != "prod/api" {
			err = fmt.Errorf("prod %v", ids(list))
		}
		return err
	})
	p.call("Jobs.PrefixList", func() error {
		list, _, err := jobs.PrefixList("we")
		if err == nil && strings.Join(ids(list), ",") != "default/web" {
			err = fmt.Errorf("prefix %v", ids(list))
		}
		return err
	})

	// --- Blocking query: a list waiting at the last index wakes on a registration.
	p.call("Jobs.List blocking", func() error {
		type answer struct {
			list []*api.JobListStub
			meta *api.QueryMeta
			err  error
		}
		done := make(chan answer, 1)
		go func() {
			list, meta, err := jobs.List(&api.QueryOptions{WaitIndex: listIndex, WaitTime: blockingWait})
			done <- answer{list, meta, err}
		}()
		time.Sleep(200 * time.Millisecond)
		if _, _, err := jobs.Register(batchJob("woken"), nil); err != nil {
			return err
		}
		got := <-done
		if got.err != nil {
			return got.err
		}
		if got.meta.LastIndex <= listIndex {
			return fmt.Errorf("woke at index %d, waited at %d", got.meta.LastIndex, listIndex)
		}
		for _, stub := range got.list {
			if stub.ID == "woken" {
				return nil
			}
		}
		return fmt.Errorf("woke without the new job: %v", ids(got.list))
	})
	p.call("Jobs.Info blocking", func() error {
		_, meta, err := jobs.Info("web", nil)
		if err != nil {
			return err
		}
		// Nothing writes the job: the query answers when its wait time is over, at the same index.
		_, again, err := jobs.Info("web", &api.QueryOptions{WaitIndex: meta.LastIndex, WaitTime: 300 * time.Millisecond})
		if err == nil && again.LastIndex != meta.LastIndex {
			err = fmt.Errorf("index %d, then %d", meta.LastIndex, again.LastIndex)
		}
		return err
	})

	// --- One job's views.
	var webIndex uint64
	p.call("Jobs.Info", func() error {
		job, _, err := jobs.Info("web", nil)
		if err != nil {
			return err
		}
		webIndex = *job.JobModifyIndex
		if *job.Type != "service" || *job.TaskGroups[0].Count != 2 || *job.Status != "running" {
			return fmt.Errorf("job %s type %s count %d", *job.Status, *job.Type, *job.TaskGroups[0].Count)
		}
		return nil
	})
	p.call("Jobs.Info unknown (404)", func() error {
		_, _, err := jobs.Info("nothing", nil)
		return refused(err, 404)
	})
	p.call("Jobs.Summary", func() error {
		summary, _, err := jobs.Summary("web", nil)
		if err == nil && summary.Summary["web"].Running != 2 {
			err = fmt.Errorf("summary %+v", summary.Summary)
		}
		return err
	})
	p.call("Jobs.Allocations", func() error {
		list, _, err := jobs.Allocations("web", false, nil)
		if err == nil && len(list) != 2 {
			err = fmt.Errorf("%d allocations", len(list))
		}
		return err
	})
	p.call("Jobs.Evaluations", func() error {
		list, _, err := jobs.Evaluations("web", nil)
		if err == nil && len(list) == 0 {
			err = errors.New("no evaluations")
		}
		return err
	})
	p.call("Jobs.EnforceRegister stale index (400)", func() error {
		_, _, err := jobs.EnforceRegister(serviceJob("web", "web:2", 2), webIndex-1, nil)
		return refused(err, 400)
	})
	p.call("Jobs.EnforceRegister", func() error {
		_, _, err := jobs.EnforceRegister(serviceJob("web", "web:2", 2), webIndex, nil)
		return err
	})
	p.call("Jobs.Versions", func() error {
		versions, diffs, _, err := jobs.Versions("web", true, nil)
		if err == nil && (len(versions) != 2 || *versions[0].Version != 1 || len(diffs) != 1) {
			err = fmt.Errorf("%d versions, %d diffs", len(versions), len(diffs))
		}
		return err
	})
	p.call("Jobs.Dispatch", func() error {
		resp, _, err := jobs.Dispatch("report", map[string]string{"customer": "acme"}, []byte("payload"), "", nil)
		if err == nil && (!strings.HasPrefix(resp.DispatchedJobID, "report/dispatch-") || resp.EvalID == "") {
			err = fmt.Errorf("dispatch %+v", resp)
		}
		return err
	})
	p.call("Jobs.Dispatch missing meta (400)", func() error {
		_, _, err := jobs.Dispatch("report", nil, nil, "", nil)
		return refused(err, 400)
	})
	p.call("Jobs.PeriodicForce", func() error {
		evalID, _, err := jobs.PeriodicForce("nightly", nil)
		if err == nil && evalID == "" {
			err = errors.New("no evaluation")
		}
		return err
	})

	// --- Deployments: the update of web waits for its canary's promotion.
	var deployment *api.Deployment
	p.call("Jobs.LatestDeployment", func() error {
		var err error
		deployment, _, err = jobs.LatestDeployment("web", nil)
		if err == nil && (deployment == nil || deployment.JobVersion != 1 || deployment.Status != "running") {
			err = fmt.Errorf("deployment %+v", deployment)
		}
		return err
	})
	if deployment == nil {
		return
	}
	p.call("Jobs.Deployments", func() error {
		list, _, err := jobs.Deployments("web", false, nil)
		if err == nil && len(list) != 2 {
			err = fmt.Errorf("%d deployments", len(list))
		}
		return err
	})
	p.call("Deployments.List", func() error {
		list, _, err := deployments.List(nil)
		if err != nil {
			return err
		}
		for _, listed := range list {
			if listed.ID == deployment.ID {
				return nil
			}
		}
		return fmt.Errorf("%d deployments, without web's latest", len(list))
	})
	p.call("Deployments.PrefixList", func() error {
		list, _, err := deployments.PrefixList(deployment.ID[:4])
		if err == nil && len(list) == 0 {
			err = errors.New("none")
		}
		return err
	})
	p.call("Deployments.Info", func() error {
		got, _, err := deployments.Info(deployment.ID, nil)
		if err == nil && got.TaskGroups["web"].DesiredCanaries != 1 {
			err = fmt.Errorf("task groups %+v", got.TaskGroups["web"])
		}
		return err
	})
	p.call("Deployments.PromoteAll unhealthy (400)", func() error {
		_, _, err := deployments.PromoteAll(deployment.ID, nil)
		return refused(err, 400)
	})
	p.step("clock: canary healthy", func() error { return p.advance(healthy) })
	p.call("Deployments.PromoteAll", func() error {
		resp, _, err := deployments.PromoteAll(deployment.ID, nil)
		if err == nil && resp.EvalID == "" {
			err = errors.New("no evaluation")
		}
		return err
	})
	p.call("Deployments.Pause", func() error {
		_, _, err := deployments.Pause(deployment.ID, true, nil)
		if err != nil {
			return err
		}
		got, _, err := deployments.Info(deployment.ID, nil)
		if err == nil && got.Status != "paused" {
			err = fmt.Errorf("status %s", got.Status)
		}
		return err
	})
	p.call("Deployments.Pause resume", func() error {
		_, _, err := deployments.Pause(deployment.ID, false, nil)
		return err
	})
	p.call("Deployments.Fail", func() error {
		_, _, err := deployments.Fail(deployment.ID, nil)
		if err != nil {
			return err
		}
		got, _, err := deployments.Info(deployment.ID, nil)
		if err == nil && got.Status != "failed" {
			err = fmt.Errorf("status %s", got.Status)
		}
		return err
	})
	p.call("Deployments.Fail again (400)", func() error {
		_, _, err := deployments.Fail(deployment.ID, nil)
		return refused(err, 400)
	})
	p.step("clock: rollback placed", func() error { return p.advance(healthy) })

	// --- Allocations, evaluations, nodes.
	var alloc *api.AllocationListStub
	p.call("Allocations.List", func() error {
		list, _, err := allocs.List(nil)
		if err == nil && len(list) == 0 {
			err = errors.New("none")
		}
		if err == nil {
			alloc = list[0]
		}
		return err
	})
	p.call("Allocations.List filter", func() error {
		list, _, err := allocs.List(&api.QueryOptions{Filter: `JobID == "agentd"`})
		if err == nil && len(list) != 3 {
			err = fmt.Errorf("%d allocations of the system job, want one a node (3)", len(list))
		}
		return err
	})
	p.call("Allocations.List namespace=*", func() error {
		list, _, err := allocs.List(&api.QueryOptions{Namespace: "*", Filter: `Namespace == "prod"`})
		if err == nil && len(list) != 1 {
			err = fmt.Errorf("%d allocations in prod", len(list))
		}
		return err
	})
	p.call("Allocations.PrefixList", func() error {
		if alloc == nil {
			return errors.New("no allocation")
		}
		list, _, err := allocs.PrefixList(alloc.ID[:6])
		if err == nil && len(list) == 0 {
			err = errors.New("none")
		}
		return err
	})
	var allocation *api.Allocation
	p.call("Allocations.Info", func() error {
		if alloc == nil {
			return errors.New("no allocation")
		}
		var err error
		allocation, _, err = allocs.Info(alloc.ID, nil)
		if err == nil && (allocation.Job == nil || allocation.NodeID == "") {
			err = errors.New("no job or node")
		}
		return err
	})
	var eval *api.Evaluation
	p.call("Evaluations.List", func() error {
		list, _, err := evals.List(&api.QueryOptions{Filter: `JobID == "web"`})
		if err == nil && len(list) == 0 {
			err = errors.New("none")
		}
		if err == nil {
			eval = list[0]
		}
		return err
	})
	p.call("Evaluations.PrefixList", func() error {
		if eval == nil {
			return errors.New("no evaluation")
		}
		list, _, err := evals.PrefixList(eval.ID[:6])
		if err == nil && len(list) == 0 {
			err = errors.New("none")
		}
		return err
	})
	p.call("Evaluations.Info", func() error {
		if eval == nil {
			return errors.New("no evaluation")
		}
		got, _, err := evals.Info(eval.ID, nil)
		if err == nil && got.JobID != "web" {
			err = fmt.Errorf("job %s", got.JobID)
		}
		return err
	})
	var node *api.NodeListStub
	p.call("Nodes.List", func() error {
		list, _, err := nodes.List(nil)
		if err == nil && len(list) != 3 {
			err = fmt.Errorf("%d nodes", len(list))
		}
		if err == nil {
			node = list[0]
		}
		return err
	})
	p.call("Nodes.PrefixList", func() error {
		if node == nil {
			return errors.New("no node")
		}
		list, _, err := nodes.PrefixList(node.ID[:6])
		if err == nil && len(list) != 1 {
			err = fmt.Errorf("%d nodes", len(list))
		}
		return err
	})
	p.call("Nodes.Info", func() error {
		if node == nil {
			return errors.New("no node")
		}
		got, _, err := nodes.Info(node.ID, nil)
		if err == nil && (got.Status != "ready" || got.Datacenter != "dc1") {
			err = fmt.Errorf("node %s in %s", got.Status, got.Datacenter)
		}
		return err
	})

	// --- ACL policies and tokens, and what a token of a read policy may not do.
	p.call("ACLPolicies.Upsert", func() error {
		_, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "reader", Description: "reads default", Rules: `namespace "default" { policy = "read" }`}, nil)
		return err
	})
	p.call("ACLPolicies.Upsert bad rules (400)", func() error {
		_, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "broken", Rules: `namespace "default" { policy = "sideways" }`}, nil)
		return refused(err, 400)
	})
	p.call("ACLPolicies.List", func() error {
		list, _, err := c.ACLPolicies().List(nil)
		if err == nil && (len(list) != 1 || list[0].Name != "reader") {
			err = fmt.Errorf("%d policies", len(list))
		}
		return err
	})
	p.call("ACLPolicies.Info", func() error {
		policy, _, err := c.ACLPolicies().Info("reader", nil)
		if err == nil && !strings.Contains(policy.Rules, `policy = "read"`) {
			err = fmt.Errorf("rules %q", policy.Rules)
		}
		return err
	})
	var reader *api.ACLToken
	p.call("ACLTokens.Create", func() error {
		var err error
		reader, _, err = c.ACLTokens().Create(&api.ACLToken{Name: "reader", Type: "client", Policies: []string{"reader"}}, nil)
		if err == nil && reader.SecretID == "" {
			err = errors.New("no secret")
		}
		return err
	})
	p.call("ACLTokens.List", func() error {
		list, _, err := c.ACLTokens().List(nil)
		if err == nil && len(list) != 2 {
			err = fmt.Errorf("%d tokens", len(list))
		}
		return err
	})
	p.call("ACLTokens.Info", func() error {
		if reader == nil {
			return errors.New("no token")
		}
		got, _, err := c.ACLTokens().Info(reader.AccessorID, nil)
		if err == nil && got.Name != "reader" {
			err = fmt.Errorf("name %q", got.Name)
		}
		return err
	})
	p.call("ACLTokens.Update", func() error {
		if reader == nil {
			return errors.New("no token")
		}
		update := *reader
		update.Name = "reader of default"
		got, _, err := c.ACLTokens().Update(&update, nil)
		if err == nil && got.Name != update.Name {
			err = fmt.Errorf("name %q", got.Name)
		}
		return err
	})
	if reader != nil {
		limited, err := api.NewClient(&api.Config{Address: p.addr, SecretID: reader.SecretID})
		if err != nil {
			p.call("api.NewClient with the reader token", func() error { return err })
		} else {
			p.call("ACLTokens.Self", func() error {
				self, _, err := limited.ACLTokens().Self(nil)
				if err == nil && self.AccessorID != reader.AccessorID {
					err = fmt.Errorf("self %s", self.AccessorID)
				}
				return err
			})
			// What the management token sees in default: the read token must see the same.
			inDefault, _, _ := jobs.List(nil)
			p.call("Jobs.List with a read token", func() error {
				list, _, err := limited.Jobs().List(nil)
				if err == nil && (len(list) == 0 || strings.Join(ids(list), ",") != strings.Join(ids(inDefault), ",")) {
					err = fmt.Errorf("read token %v, management %v", ids(list), ids(inDefault))
				}
				return err
			})
			p.call("Jobs.List namespace=* with a read token", func() error {
				// Only the namespaces the token may read are listed: prod's job is not.
				list, _, err := limited.Jobs().List(&api.QueryOptions{Namespace: "*"})
				if err == nil && strings.Join(ids(list), ",") != strings.Join(ids(inDefault), ",") {
					err = fmt.Errorf("read token %v, management in default %v", ids(list), ids(inDefault))
				}
				return err
			})
			p.call("Jobs.Info in prod with a read token (403)", func() error {
				_, _, err := limited.Jobs().Info("api", &api.QueryOptions{Namespace: "prod"})
				return refused(err, 403)
			})
			p.call("Jobs.Register with a read token (403)", func() error {
				_, _, err := limited.Jobs().Register(batchJob("forbidden"), nil)
				return refused(err, 403)
			})
			p.call("Deployments.Fail with a read token (403)", func() error {
				_, _, err := limited.Deployments().Fail(deployment.ID, nil)
				return refused(err, 403)
			})
			p.call("ACLPolicies.List with a read token", func() error {
				// A token that is not a management token lists its own policies only.
				list, _, err := limited.ACLPolicies().List(nil)
				if err == nil && (len(list) != 1 || list[0].Name != "reader") {
					err = fmt.Errorf("%d policies", len(list))
				}
				return err
			})
			p.call("ACLPolicies.Info of another policy with a read token (403)", func() error {
				_, _, err := limited.ACLPolicies().Info("broken", nil)
				return refused(err, 403)
			})
			p.call("ACLTokens.List with a read token (403)", func() error {
				_, _, err := limited.ACLTokens().List(nil)
				return refused(err, 403)
			})
			p.call("Namespaces.Register with a read token (403)", func() error {
				_, err := limited.Namespaces().Register(&api.Namespace{Name: "mine"}, nil)
				return refused(err, 403)
			})
			p.call("ACLTokens.Delete", func() error {
				_, err := c.ACLTokens().Delete(reader.AccessorID, nil)
				return err
			})
			p.call("Jobs.List with a deleted token (403)", func() error {
				_, _, err := limited.Jobs().List(nil)
				return refused(err, 403)
			})
		}
	}
	p.call("ACLPolicies.Delete", func() error {
		_, err := c.ACLPolicies().Delete("reader", nil)
		return err
	})

	// --- Deregistration.
	p.call("Jobs.Deregister", func() error {
		evalID, _, err := jobs.Deregister("once", false, nil)
		if err == nil && evalID == "" {
			err = errors.New("no evaluation")
		}
		if err == nil {
			var job *api.Job
			job, _, err = jobs.Info("once", nil)
			if err == nil && !*job.Stop {
				err = errors.New("not stopped")
			}
		}
		return err
	})
	p.call("Jobs.DeregisterOpts purge", func() error {
		_, _, err := jobs.DeregisterOpts("woken", &api.DeregisterOptions{Purge: true}, nil)
		if err == nil {
			_, _, err = jobs.Info("woken", nil)
			err = refused(err, 404)
		}
		return err
	})
	p.call("Namespaces.Delete", func() error {
		_, err := c.Namespaces().Delete("staging", nil)
		return err
	})

	// --- The event stream: every topic's events from the start.
	p.eventStream()

	// --- Metrics.
	p.call("Operator.Metrics", func() error {
		raw, err := c.Operator().Metrics(nil)
		if err == nil && !bytes.Contains(raw, []byte(`"Gauges"`)) {
			err = fmt.Errorf("metrics %.100s", raw)
		}
		return err
	})
	p.call("Operator.MetricsSummary", func() error {
		summary, _, err := c.Operator().MetricsSummary(nil)
		if err == nil && summary.Timestamp == "" {
			err = errors.New("no timestamp")
		}
		return err
	})

	p.unserved(allocation, deployment)

	// --- Each area's own file (areas.go and the files beside it): run last, in name order.
	p.runAreas()
}

// eventStream reads the stream from index 1 until it has seen an event of each topic asked for.
func (p *program) eventStream() {
	topics := []api.Topic{api.TopicJob, api.TopicEvaluation, api.TopicAllocation, api.TopicDeployment}
	ctx, cancel := context.WithTimeout(context.Background(), blockingWait)
	defer cancel()
	asked := map[api.Topic][]string{}
	for _, topic := range topics {
		asked[topic] = []string{"*"}
	}
	stream, err := p.client.EventStream().Stream(ctx, asked, 1, nil)
	if err != nil {
		p.call("EventStream.Stream", func() error { return err })
		return
	}
	seen := map[api.Topic]bool{}
	var streamErr error
	for len(seen) < len(topics) && streamErr == nil {
		select {
		case events, open := <-stream:
			if !open {
				streamErr = errors.New("stream closed")
				break
			}
			if events.Err != nil {
				streamErr = events.Err
				break
			}
			for _, event := range events.Events {
				// Decoded by the client: the payload's typed accessors.
				var decodeErr error
				switch event.Topic {
				case api.TopicJob:
					_, decodeErr = event.Job()
				case api.TopicEvaluation:
					_, decodeErr = event.Evaluation()
				case api.TopicAllocation:
					_, decodeErr = event.Allocation()
				case api.TopicDeployment:
					_, decodeErr = event.Deployment()
				}
				if decodeErr != nil {
					streamErr = fmt.Errorf("%s event: %v", event.Topic, decodeErr)
					break
				}
				seen[event.Topic] = true
			}
		case <-ctx.Done():
			streamErr = ctx.Err()
		}
	}
	for _, topic := range topics {
		topic := topic
		p.call("EventStream.Stream "+string(topic), func() error {
			if seen[topic] {
				return nil
			}
			if streamErr != nil {
				return streamErr
			}
			return errors.New("no event")
		})
	}
}

// unserved makes the calls whose routes the agent does not serve yet, each with arguments that
// make sense once it does (the test lists them as expected to fail; remove a name there when its
// route is served). They run last: those that write change what the calls above would see.
func (p *program) unserved(allocation *api.Allocation, deployment *api.Deployment) {
	c := p.client
	jobs := c.Jobs()
	p.call("Agent.Self", func() error {
		self, err := c.Agent().Self()
		if err == nil && self.Member.Name == "" {
			err = errors.New("no member name")
		}
		return err
	})
	p.call("Agent.Region", func() error {
		region, err := c.Agent().Region()
		if err == nil && region != "global" {
			err = fmt.Errorf("region %q", region)
		}
		return err
	})
	p.call("Agent.Datacenter", func() error {
		dc, err := c.Agent().Datacenter()
		if err == nil && dc != "dc1" {
			err = fmt.Errorf("datacenter %q", dc)
		}
		return err
	})
	p.call("Agent.NodeName", func() error {
		_, err := c.Agent().NodeName()
		return err
	})
	p.call("Jobs.ParseHCL", func() error {
		// HCL2 allows one argument in a block written on one line: the blocks are on lines of their own.
		job, err := jobs.ParseHCL("job \"hcl\" {\n group \"g\" {\n  task \"t\" {\n   driver = \"docker\"\n   config {\n    image = \"x\"\n   }\n  }\n }\n}\n", true)
		if err == nil && *job.ID != "hcl" {
			err = fmt.Errorf("ID %q", *job.ID)
		}
		return err
	})
	p.call("Jobs.Validate", func() error {
		_, _, err := jobs.Validate(serviceJob("checked", "x", 1), nil)
		return err
	})
	p.call("Jobs.Plan", func() error {
		plan, _, err := jobs.Plan(serviceJob("web", "web:3", 3), true, nil)
		if err == nil && plan.JobModifyIndex == 0 {
			err = errors.New("no JobModifyIndex")
		}
		return err
	})
	p.call("Jobs.ScaleStatus", func() error {
		_, _, err := jobs.ScaleStatus("web", nil)
		return err
	})
	p.call("Jobs.Scale", func() error {
		_, _, err := jobs.Scale("web", "web", ptr(3), "from the Go client", false, nil, nil)
		return err
	})
	p.call("Jobs.Stable", func() error {
		_, _, err := jobs.Stable("web", 0, true, nil)
		return err
	})
	p.call("Jobs.Revert", func() error {
		_, _, err := jobs.Revert("web", 0, nil, nil, "", "")
		return err
	})
	p.call("Jobs.ForceEvaluate", func() error {
		_, _, err := jobs.ForceEvaluate("web", nil)
		return err
	})
	p.call("Jobs.Submission", func() error {
		// "web" was registered without its source: the reference's 404 (plan_area.go reads one back).
		_, _, err := jobs.Submission("web", 0, nil)
		return refused(err, 404)
	})
	p.call("Evaluations.Allocations", func() error {
		list, _, err := c.Evaluations().List(&api.QueryOptions{Filter: `JobID == "agentd"`})
		if err != nil || len(list) == 0 {
			return fmt.Errorf("no evaluation of agentd: %v", err)
		}
		_, _, err = c.Evaluations().Allocations(list[0].ID, nil)
		return err
	})
	p.call("Deployments.Allocations", func() error {
		_, _, err := c.Deployments().Allocations(deployment.ID, nil)
		return err
	})
	p.call("Deployments.SetAllocHealth", func() error {
		if _, _, err := jobs.Register(serviceJob("web", "web:4", 2), nil); err != nil {
			return err
		}
		latest, _, err := jobs.LatestDeployment("web", nil)
		if err != nil || latest == nil {
			return fmt.Errorf("no deployment: %v", err)
		}
		canaries := []string{}
		for _, group := range latest.TaskGroups {
			canaries = append(canaries, group.PlacedCanaries...)
		}
		_, _, err = c.Deployments().SetAllocHealth(latest.ID, canaries, nil, nil)
		return err
	})
	var nodeID string
	if allocation != nil {
		nodeID = allocation.NodeID
	}
	p.call("Nodes.Allocations", func() error {
		_, _, err := c.Nodes().Allocations(nodeID, nil)
		return err
	})
	p.call("Nodes.ToggleEligibility", func() error {
		_, err := c.Nodes().ToggleEligibility(nodeID, false, nil)
		return err
	})
	p.call("Nodes.UpdateDrain", func() error {
		_, err := c.Nodes().UpdateDrain(nodeID, &api.DrainSpec{Deadline: time.Hour}, false, nil)
		return err
	})
	p.call("Allocations.Stop", func() error {
		if allocation == nil {
			return errors.New("no allocation")
		}
		_, err := c.Allocations().Stop(allocation, nil)
		return err
	})
}
