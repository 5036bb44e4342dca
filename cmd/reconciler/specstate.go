package main

import (
	"fmt"
	"io"
	"strings"

	"gjc.dev/reconciler/pkg/reconcile"
)

// printSpecInvalid says, under the status table, what stands in for each
// broken spec file and which names are acted on: "kept" only where
// something was.
func printSpecInvalid(w io.Writer, st *reconcile.Status) {
	fmt.Fprintf(w, "\nspec invalid: %d error(s); run reconciler validate\n", len(st.SpecErrors))
	k := st.Keeping
	if k == nil {
		return // written by a reconciler that did not say
	}
	for _, s := range k.Sources {
		switch s.Kept {
		case reconcile.KeptFromDisk:
			fmt.Fprintf(w, "%s: last known good objects kept, from lastgood.json: %s\n", s.File, names(s.Names))
		case reconcile.KeptInMemory:
			fmt.Fprintf(w, "%s: last known good objects kept (as the file last validated): %s\n", s.File, names(s.Names))
		default:
			fmt.Fprintf(w, "%s: nothing kept (no last known good): its daemons are neither started nor stopped\n", s.File)
		}
	}
	if k.LastGoodProblem != "" {
		fmt.Fprintf(w, "lastgood.json not used: %s\n", k.LastGoodProblem)
	}
	if len(k.ActingOn) == 0 {
		fmt.Fprintln(w, "acting on no daemon: nothing is started, stopped or pruned until the spec validates")
		return
	}
	fmt.Fprintf(w, "acting only on: %s (nothing is pruned until the spec validates)\n", strings.Join(k.ActingOn, ", "))
}

func names(ns []string) string {
	if len(ns) == 0 {
		return "no daemons"
	}
	return strings.Join(ns, ", ")
}
