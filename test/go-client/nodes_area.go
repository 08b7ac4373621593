package main

import (
	"fmt"
	"sort"

	"github.com/hashicorp/nomad/api"
)

// The nodes as the reference's clients fingerprint them: each node's drivers decoded as the
// client's DriverInfo, consistent with its attributes, and empty CSI plugin maps; dynamic node
// metadata read and applied (a null removing a key), which the node then carries.
func init() {
	area("nodes", func(p *program) {
		nodes := p.client.Nodes()

		var nodeID string
		p.call("Nodes.Info(drivers)", func() error {
			stubs, _, err := nodes.List(nil)
			if err != nil {
				return err
			}
			if len(stubs) == 0 {
				return fmt.Errorf("no nodes")
			}
			sort.Slice(stubs, func(i, j int) bool { return stubs[i].Name < stubs[j].Name })
			nodeID = stubs[0].ID
			if info := stubs[0].Drivers["docker"]; info == nil || !info.Detected || !info.Healthy {
				return fmt.Errorf("the stub's docker driver: %+v", info)
			}
			node, _, err := nodes.Info(nodeID, nil)
			if err != nil {
				return err
			}
			for _, name := range []string{"docker", "exec", "raw_exec", "mock"} {
				info := node.Drivers[name]
				if info == nil || !info.Detected || !info.Healthy || info.HealthDescription != "Healthy" || info.UpdateTime.IsZero() || info.Attributes["driver."+name] != "true" {
					return fmt.Errorf("driver %s: %+v", name, info)
				}
				if node.Attributes["driver."+name] != "1" {
					return fmt.Errorf("attribute driver.%s = %q", name, node.Attributes["driver."+name])
				}
			}
			if node.CSIControllerPlugins == nil || len(node.CSIControllerPlugins) != 0 || node.CSINodePlugins == nil || len(node.CSINodePlugins) != 0 {
				return fmt.Errorf("CSI plugins %v %v", node.CSIControllerPlugins, node.CSINodePlugins)
			}
			return nil
		})
		p.call("Nodes.Meta.Apply", func() error {
			rack, team := "r7", "web"
			resp, err := nodes.Meta().Apply(&api.NodeMetaApplyRequest{NodeID: nodeID, Meta: map[string]*string{"go.rack": &rack, "go.team": &team}}, nil)
			if err != nil {
				return err
			}
			if resp.Meta["go.rack"] != "r7" || resp.Dynamic["go.team"] == nil || *resp.Dynamic["go.team"] != "web" {
				return fmt.Errorf("applied %+v", resp)
			}
			removed, err := nodes.Meta().Apply(&api.NodeMetaApplyRequest{NodeID: nodeID, Meta: map[string]*string{"go.team": nil}}, nil)
			if err != nil {
				return err
			}
			if _, ok := removed.Meta["go.team"]; ok {
				return fmt.Errorf("go.team still set: %+v", removed.Meta)
			}
			node, _, err := nodes.Info(nodeID, nil)
			if err != nil {
				return err
			}
			if node.Meta["go.rack"] != "r7" {
				return fmt.Errorf("the node's meta %v", node.Meta)
			}
			return nil
		})
		p.call("Nodes.Meta.Read", func() error {
			resp, err := nodes.Meta().Read(nodeID, nil)
			if err != nil {
				return err
			}
			if resp.Meta["go.rack"] != "r7" || resp.Dynamic["go.rack"] == nil || *resp.Dynamic["go.rack"] != "r7" {
				return fmt.Errorf("read %+v", resp)
			}
			return nil
		})
	})
}
