package localapi

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/reconcile"
)

// streamingBackend's stop waits as the loop's do: its reconciler reports
// to the hub, for the name stopped and for another name at once.
type streamingBackend struct {
	fakeBackend
	hub *ProgressHub
}

func (b *streamingBackend) Stop(ctx context.Context, req StopRequest) (*OperateResponse, error) {
	defer b.hub.forward(ctx, progressNames(req.Selection))()
	deadline := time.Now().Add(time.Minute).Truncate(time.Second)
	b.hub.Report(reconcile.Progress{Name: "d1", Wait: reconcile.WaitExitAfterSIGTERM, PID: 42, Deadline: deadline, Detail: "a\nb"})
	b.hub.Report(reconcile.Progress{Name: "other", Wait: reconcile.WaitReady, PID: 43})
	b.hub.Report(reconcile.Progress{Name: "d1"})
	return b.fakeBackend.Stop(ctx, req)
}

// A client that asks for the loop's waits hears those of the names it acts
// on, in order, before the answer; one that does not gets the plain answer.
func TestOperationStreamsTheLoopsWaits(t *testing.T) {
	t.Parallel()
	dir := serveOn(t, NewServer(&streamingBackend{hub: NewProgressHub()}, logr.Discard()))
	c := NewClient(dir)
	var heard []reconcile.Progress
	c.Progress = func(p reconcile.Progress) { heard = append(heard, p) }
	req := StopRequest{Selection: reconcile.Selection{Names: []string{"d1"}}, Force: true}
	resp, err := c.Stop(context.Background(), req)
	if err != nil || len(resp.Results) != 1 || !resp.Results[0].OK {
		t.Fatalf("stop: %+v, %v", resp, err)
	}
	want := []reconcile.Progress{
		{Name: "d1", Wait: reconcile.WaitExitAfterSIGTERM, PID: 42, Detail: "a b"},
		{Name: "d1"},
	}
	if len(heard) == 2 {
		want[0].Deadline = heard[0].Deadline
	}
	if !slices.Equal(heard, want) || heard[0].Deadline.IsZero() {
		t.Errorf("heard %+v, want %+v with a deadline", heard, want)
	}

	plain := NewClient(dir)
	if resp, err := plain.Stop(context.Background(), req); err != nil || len(resp.Results) != 1 {
		t.Fatalf("stop without progress: %+v, %v", resp, err)
	}
}

// An error after waits is still the loop's error, with its exit code.
func TestStreamedErrorKeepsItsExitCode(t *testing.T) {
	t.Parallel()
	b := &streamingBackend{hub: NewProgressHub()}
	b.err = &Error{Message: "no such daemon", Code: exitUsage}
	c := NewClient(serveOn(t, NewServer(b, logr.Discard())))
	var heard int
	c.Progress = func(reconcile.Progress) { heard++ }
	_, err := c.Stop(context.Background(), StopRequest{Selection: reconcile.Selection{Names: []string{"d1"}}})
	if ExitCode(err) != exitUsage || heard != 2 {
		t.Errorf("error %v (exit %d), %d waits heard; want exit 2 after 2 waits", err, ExitCode(err), heard)
	}
}
