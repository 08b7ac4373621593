package main

import "sort"

// areas are the groups of calls kept in their own files beside main.go (one file per part of the
// client's surface: variables_area.go, search_area.go, ...). Each file registers its function in an
// init func; run calls them last, in name order, with the management token set on the client.
var areas = map[string]func(p *program){}

// area registers the calls of one part of the client's surface under a unique name.
func area(name string, f func(p *program)) {
	if _, taken := areas[name]; taken {
		panic("area " + name + " registered twice")
	}
	areas[name] = f
}

func (p *program) runAreas() {
	names := make([]string, 0, len(areas))
	for name := range areas {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		areas[name](p)
	}
}
