package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
)

// An allocation's files and its task's logs (AllocFS): a job whose task scripts its stdout (a line
// at the start, one 5 s later, one 10 s later) and a file under local/, and runs 20 s. The logs are
// read framed, then followed while the program moves the clock, until the task ends and the
// stream with it; the directory is listed and its files read as the CLI's `alloc fs` does.
func init() {
	area("fs", func(p *program) {
		c := p.client
		job := api.NewServiceJob("logs", "logs", "global", 50).AddDatacenter("dc1")
		job.Meta = map[string]string{"bexpr.run_for": "20s"}
		task := api.NewTask("app", "docker").SetConfig("image", "app:1")
		task.Meta = map[string]string{
			"bexpr.stdout":              "listening on :8080\n@5s GET / 200\n@10s GET /health 200\n",
			"bexpr.file.local/app.conf": "port = 8080\n",
		}
		job.AddTaskGroup(api.NewTaskGroup("web", 1).AddTask(task))

		var alloc *api.Allocation
		p.step("fs: a running allocation", func() error {
			if _, _, err := c.Jobs().Register(job, nil); err != nil {
				return err
			}
			if err := p.advance("1s"); err != nil {
				return err
			}
			stubs, _, err := c.Jobs().Allocations("logs", false, nil)
			if err != nil {
				return err
			}
			for _, stub := range stubs {
				if stub.ClientStatus == "running" {
					alloc, _, err = c.Allocations().Info(stub.ID, nil)
					return err
				}
			}
			return fmt.Errorf("no running allocation among %d", len(stubs))
		})
		if alloc == nil {
			return
		}
		fs := c.AllocFS()

		p.call("AllocFS.List", func() error {
			files, _, err := fs.List(alloc, "alloc/logs", nil)
			if err != nil {
				return err
			}
			var names []string
			for _, file := range files {
				names = append(names, file.Name)
			}
			if strings.Join(names, ",") != "app.stderr.0,app.stdout.0" || files[1].Size != 19 || files[1].IsDir {
				return fmt.Errorf("alloc/logs holds %v (%+v)", names, files)
			}
			_, _, err = fs.List(alloc, "../..", nil)
			return refused(err, 400)
		})
		p.call("AllocFS.Stat", func() error {
			info, _, err := fs.Stat(alloc, "app/local/app.conf", nil)
			if err != nil {
				return err
			}
			if info.Name != "app.conf" || info.Size != 12 || info.IsDir || info.ContentType != "text/plain; charset=utf-8" || info.ModTime.IsZero() {
				return fmt.Errorf("stat %+v", info)
			}
			_, _, err = fs.Stat(alloc, "app/local/nope", nil)
			return refused(err, 404)
		})
		p.call("AllocFS.Cat", func() error {
			body, err := fs.Cat(alloc, "app/local/app.conf", nil)
			if err != nil {
				return err
			}
			defer body.Close()
			text, err := io.ReadAll(body)
			if err != nil || string(text) != "port = 8080\n" {
				return fmt.Errorf("cat %q, %v", text, err)
			}
			return nil
		})
		p.call("AllocFS.ReadAt", func() error {
			body, err := fs.ReadAt(alloc, "app/local/app.conf", 7, 4, nil)
			if err != nil {
				return err
			}
			defer body.Close()
			text, err := io.ReadAll(body)
			if err != nil || string(text) != "8080" {
				return fmt.Errorf("readat %q, %v", text, err)
			}
			return nil
		})
		p.call("AllocFS.Logs", func() error {
			text, err := logText(fs, alloc, false, func() error { return nil })
			if err != nil {
				return err
			}
			if text != "listening on :8080\n" {
				return fmt.Errorf("logs %q", text)
			}
			return nil
		})
		p.call("AllocFS.Logs(follow)", func() error {
			// The clock moves while the stream is open: each line arrives at its time, and the
			// stream ends when the task does (20 s after it started).
			text, err := logText(fs, alloc, true, func() error {
				for _, by := range []string{"5s", "5s", "11s"} {
					if err := p.advance(by); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			if text != "listening on :8080\nGET / 200\nGET /health 200\n" {
				return fmt.Errorf("followed logs %q", text)
			}
			return nil
		})
	})
}

// logText reads the task's stdout through AllocFS().Logs, framed, while move runs, until the
// stream ends (or 30 s pass, which fails).
func logText(fs *api.AllocFS, alloc *api.Allocation, follow bool, move func() error) (string, error) {
	cancel := make(chan struct{})
	defer close(cancel)
	frames, errs := fs.Logs(alloc, follow, "app", api.FSLogNameStdout, api.OriginStart, 0, cancel, nil)
	if frames == nil {
		return "", <-errs
	}
	moved := make(chan error, 1)
	go func() { moved <- move() }()
	var text strings.Builder
	timeout := time.After(30 * time.Second)
	for {
		select {
		case frame, ok := <-frames:
			if !ok {
				return text.String(), <-moved
			}
			if frame.File != "alloc/logs/app.stdout.0" {
				return "", fmt.Errorf("a frame of %q", frame.File)
			}
			text.Write(frame.Data)
		case err := <-errs:
			return "", err
		case <-timeout:
			return "", fmt.Errorf("the stream did not end; read %q", text.String())
		}
	}
}
