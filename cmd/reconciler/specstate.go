package main

import (
	"fmt"
	"io"
	"strings"

	"gjc.dev/reconciler/pkg/reconcile"
)

// maxSpecErrors bounds the errors listed under the table; validate lists
// them all.
const maxSpecErrors = 10

// printSpecInvalid says, under the status table, what stands in for each
// broken spec file and which names are acted on: "kept" only where
// something was.
func printSpecInvalid(w io.Writer, st *reconcile.Status) {
	fmt.Fprintf(w, "\nspec invalid: %d error(s); run reconciler validate\n", len(st.SpecErrors))
	// Each error names its file: a spec not found (a forgotten --spec)
	// must say which file was looked for.
	for i, e := range st.SpecErrors {
		if i == maxSpecErrors {
			fmt.Fprintf(w, "  ... and %d more\n", len(st.SpecErrors)-i)
			break
		}
		fmt.Fprintf(w, "  %s\n", e)
	}
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

// specValidAgain is what `status -w` prints when the spec validates again
// after a look that found it invalid: the invalid notes were said once,
// and their end must be said too.
func specValidAgain(wasValid, valid bool) string {
	if wasValid || !valid {
		return ""
	}
	return "spec valid again: every daemon is acted on as the spec says"
}
