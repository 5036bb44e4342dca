package reconcile

import (
	"context"

	"gjc.dev/reconciler/pkg/spec"
)

// Spec is the loop's current spec result (read-only, as every Result),
// waiting for the first load if a request comes before it. A command that
// needs only the loop's word on which names exist (send) asks this, and
// neither the pass lock nor any name's worker is held up by it.
func (l *Loop) Spec(ctx context.Context) (*spec.Result, error) {
	if res := l.result(); res != nil {
		return res, nil
	}
	if err := l.serving.waitReady(ctx); err != nil {
		return nil, err
	}
	return l.result(), nil
}
