package main

import (
	"fmt"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// Host volumes: one created with the built-in mkdir plugin (pending, then ready once its client
// reports it, a second later on the agent's clock), one registered on a named node, listed, read
// and deleted; CSI volumes and plugins answered as a cluster without CSI plugins.
func init() {
	area("host_volumes", func(p *program) {
		c := p.client
		volumes := c.HostVolumes()

		var created *api.HostVolume
		p.call("HostVolumes.Create", func() error {
			resp, wm, err := volumes.Create(&api.HostVolumeCreateRequest{Volume: &api.HostVolume{Name: "go-data", PluginID: "mkdir"}}, nil)
			if err != nil {
				return err
			}
			created = resp.Volume
			if created == nil || created.ID == "" || created.NodeID == "" || created.State != api.HostVolumeStatePending || wm.LastIndex == 0 {
				return fmt.Errorf("created %+v at %d", created, wm.LastIndex)
			}
			if !strings.HasSuffix(created.HostPath, "/"+created.ID) || len(created.RequestedCapabilities) != 1 {
				return fmt.Errorf("path %q, capabilities %v", created.HostPath, created.RequestedCapabilities)
			}
			return nil
		})
		if created == nil {
			return
		}
		p.step("clock: volume reported by its client", func() error { return p.advance("1s") })

		p.call("HostVolumes.Get", func() error {
			vol, meta, err := volumes.Get(created.ID, nil)
			if err != nil {
				return err
			}
			if vol.State != api.HostVolumeStateReady || vol.NodeID != created.NodeID || meta.LastIndex == 0 {
				return fmt.Errorf("read %+v at %d", vol, meta.LastIndex)
			}
			node, _, err := c.Nodes().Info(created.NodeID, nil)
			if err != nil {
				return err
			}
			if hv := node.HostVolumes["go-data"]; hv == nil || hv.Path != created.HostPath {
				return fmt.Errorf("node's host volumes %v", node.HostVolumes)
			}
			return nil
		})

		var registered *api.HostVolume
		p.call("HostVolumes.Register", func() error {
			resp, _, err := volumes.Register(&api.HostVolumeRegisterRequest{Volume: &api.HostVolume{Name: "go-existing", NodeID: created.NodeID, HostPath: "/srv/existing", CapacityBytes: 1 << 20}}, nil)
			if err != nil {
				return err
			}
			registered = resp.Volume
			if registered == nil || registered.HostPath != "/srv/existing" || registered.CapacityBytes != 1<<20 || registered.State != api.HostVolumeStatePending {
				return fmt.Errorf("registered %+v", registered)
			}
			return nil
		})

		p.call("HostVolumes.List", func() error {
			stubs, meta, err := volumes.List(&api.HostVolumeListRequest{NodeID: created.NodeID}, nil)
			if err != nil {
				return err
			}
			names := []string{}
			for _, stub := range stubs {
				names = append(names, stub.Name)
			}
			if len(stubs) != 2 || meta.LastIndex == 0 {
				return fmt.Errorf("listed %v at %d", names, meta.LastIndex)
			}
			return nil
		})

		p.call("HostVolumes.Delete", func() error {
			if _, _, err := volumes.Delete(&api.HostVolumeDeleteRequest{ID: created.ID}, nil); err != nil {
				return err
			}
			return refused(func() error { _, _, err := volumes.Get(created.ID, nil); return err }(), 404)
		})

		p.call("CSIVolumes.List", func() error {
			vols, _, err := c.CSIVolumes().List(nil)
			if err != nil {
				return err
			}
			if len(vols) != 0 {
				return fmt.Errorf("CSI volumes %v", vols)
			}
			return refused(func() error { _, _, err := c.CSIVolumes().Info("database", nil); return err }(), 404)
		})

		p.call("CSIPlugins.List", func() error {
			plugins, _, err := c.CSIPlugins().List(nil)
			if err != nil {
				return err
			}
			if len(plugins) != 0 {
				return fmt.Errorf("CSI plugins %v", plugins)
			}
			return nil
		})
	})
}
