package spec

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Files both ways (DESIGN 5, "Files"): the spec's longTextAsFile, and each
// provider block's maxInboundFileBytes.
const (
	// DefaultMaxInboundFileBytes is maxInboundFileBytes when the spec says
	// none: a file of a reply over it is recorded as skipped, not landed.
	DefaultMaxInboundFileBytes = 10 << 20
	// MaxInboundFileBytes bounds maxInboundFileBytes: a reply's file lands
	// on the agent's disk, and no service's own limit is larger.
	MaxInboundFileBytes = 1 << 30
	// MaxLongTextAsFile bounds longTextAsFile: more parts than any text
	// is split into is the same as off.
	MaxLongTextAsFile = 1000
)

// validateLongTextAsFile checks the spec's longTextAsFile: 0 (off) or a
// number of parts.
func validateLongTextAsFile(n int, p *field.Path) field.ErrorList {
	if n >= 0 && n <= MaxLongTextAsFile {
		return nil
	}
	return field.ErrorList{field.Invalid(p, n, fmt.Sprintf("must be between 0 (off) and %d parts", MaxLongTextAsFile))}
}

// validateMaxInboundFileBytes checks a provider block's
// maxInboundFileBytes: a whole number of bytes ("10Mi", "512Ki",
// "1048576"), from 1 to 1Gi.
func validateMaxInboundFileBytes(q *resource.Quantity, p *field.Path) field.ErrorList {
	if q == nil {
		return nil
	}
	n, whole := q.AsInt64()
	if !whole || q.MilliValue()%1000 != 0 {
		return field.ErrorList{field.Invalid(p, q.String(), "must be a whole number of bytes, as 10Mi or 1048576")}
	}
	if n < 1 || n > MaxInboundFileBytes {
		return field.ErrorList{field.Invalid(p, q.String(), "must be between 1 and 1Gi bytes")}
	}
	return nil
}

// maxInboundFileBytes is a provider block's maxInboundFileBytes resolved:
// the default when the spec says none.
func maxInboundFileBytes(q *resource.Quantity) int64 {
	if q == nil {
		return DefaultMaxInboundFileBytes
	}
	n, _ := q.AsInt64()
	return n
}
