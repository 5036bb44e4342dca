package spec

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// inboundSweep (DESIGN 5, "A deaf connection"): how often a daemon reads
// every open session's history besides on connect, so that a reply a
// connection that looks healthy did not deliver still lands. Each sweep
// costs one history request per open session; under MinInboundSweep a
// bot with many sessions would spend its rate limit on reading.
const (
	DefaultInboundSweep = 5 * time.Minute
	MinInboundSweep     = 10 * time.Second
	MaxInboundSweep     = time.Hour
)

func validateInboundSweep(d *metav1.Duration, p *field.Path) field.ErrorList {
	if d == nil || (d.Duration >= MinInboundSweep && d.Duration <= MaxInboundSweep) {
		return nil
	}
	return field.ErrorList{field.Invalid(p, d.Duration.String(), fmt.Sprintf("must be between %v and %v", MinInboundSweep, MaxInboundSweep))}
}
