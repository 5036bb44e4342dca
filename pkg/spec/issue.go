package spec

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Issue is one error or warning about a spec source, rendered as
// `file[index]: field: detail`, the form an operator can jump to.
type Issue struct {
	File string
	// Index is the document's index in the file, or -1 when the file as a whole
	// is concerned (it cannot be read, say).
	Index  int
	Field  string
	Detail string
}

func (i Issue) String() string {
	loc := i.File
	if i.Index >= 0 {
		loc = fmt.Sprintf("%s[%d]", i.File, i.Index)
	}
	if i.Field == "" {
		return loc + ": " + i.Detail
	}
	return loc + ": " + i.Field + ": " + i.Detail
}

func fieldIssues(file string, index int, errs field.ErrorList) []Issue {
	out := make([]Issue, 0, len(errs))
	for _, e := range errs {
		if e.Field == "<nil>" || e.Field == "" {
			// A problem of the document as a whole: "Invalid value" says nothing.
			out = append(out, Issue{File: file, Index: index, Detail: e.Detail})
			continue
		}
		out = append(out, Issue{File: file, Index: index, Field: e.Field, Detail: e.ErrorBody()})
	}
	return out
}
