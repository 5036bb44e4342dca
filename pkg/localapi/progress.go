package localapi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"sync"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/reconcile"
)

// A command that waits (stop, start, restart) sees the loop's own waits as
// the command acting alone prints them: what it waits for, on which
// process, until when. It asks for them with Accept: ContentTypeProgress;
// the loop then answers 200 with one JSON object a line: each a wait
// ({"progress": ...}) and, last, the answer ({"result": ...} or
// {"error": ...}). A client that does not ask gets the plain answer, and a
// loop that does not stream answers plainly: both are read.

// ContentTypeProgress is the streamed answer's media type.
const ContentTypeProgress = "application/x-ndjson"

// progressWait bounds how many waits queue for one request's stream: a
// client that reads slowly loses countdown lines, never the loop's time.
const progressWait = 64

// Wait is one wait on the wire: reconcile.Progress, which has no JSON form
// of its own.
type Wait struct {
	Name     string         `json:"name,omitempty"`
	Wait     reconcile.Wait `json:"wait,omitempty"`
	PID      int            `json:"pid,omitempty"`
	Deadline time.Time      `json:"deadline,omitzero"`
	Detail   string         `json:"detail,omitempty"`
}

// streamLine is one line of a streamed answer.
type streamLine struct {
	Progress *Wait           `json:"progress,omitempty"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    *Error          `json:"error,omitempty"`
}

// ProgressHub hands the loop's waits (its reconciler's Progress) to the
// requests that wait on them, each for the names it acts on.
type ProgressHub struct {
	mu   sync.Mutex
	subs map[*progressSub]struct{}
}

type progressSub struct {
	names []string // nil: every name
	ch    chan reconcile.Progress
}

// NewProgressHub is a hub with no request listening.
func NewProgressHub() *ProgressHub {
	return &ProgressHub{subs: map[*progressSub]struct{}{}}
}

// Report is a reconcile.ProgressFunc: it never blocks the loop's waits.
func (h *ProgressHub) Report(p reconcile.Progress) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		if s.names != nil && !slices.Contains(s.names, p.Name) {
			continue
		}
		select {
		case s.ch <- p:
		default:
		}
	}
}

// forward sends the waits of names (nil: all) to ctx's progress sink,
// until the returned func is called; it does nothing for a request that
// asked for no stream, or on a nil hub.
func (h *ProgressHub) forward(ctx context.Context, names []string) (stop func()) {
	sink := progressSink(ctx)
	if h == nil || sink == nil {
		return func() {}
	}
	s := &progressSub{names: names, ch: make(chan reconcile.Progress, progressWait)}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	done := make(chan struct{})
	quit := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case p := <-s.ch:
				sink(p)
			case <-quit:
				// What the request's own waits said before it ended.
				for {
					select {
					case p := <-s.ch:
						sink(p)
					default:
						return
					}
				}
			}
		}
	}()
	return func() {
		h.mu.Lock()
		delete(h.subs, s)
		h.mu.Unlock()
		close(quit)
		<-done
	}
}

type sinkKey struct{}

// withProgressSink is ctx carrying where a request's waits go.
func withProgressSink(ctx context.Context, sink reconcile.ProgressFunc) context.Context {
	return context.WithValue(ctx, sinkKey{}, sink)
}

func progressSink(ctx context.Context) reconcile.ProgressFunc {
	f, _ := ctx.Value(sinkKey{}).(reconcile.ProgressFunc)
	return f
}

// progressNames are the names whose waits an operation on sel hears: the
// names it gives, every name for --all.
func progressNames(sel reconcile.Selection) []string {
	if sel.All {
		return nil
	}
	return append([]string{}, sel.Names...) // never nil: nil is every name
}

// streamed: the loop answered with the streamed answer. A loop that does
// not stream answers plainly, and is read as before.
func streamed(resp *http.Response) bool {
	t, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return resp.StatusCode == http.StatusOK && err == nil && t == ContentTypeProgress
}

// wantsProgress: the client asked for the streamed answer.
func wantsProgress(r *http.Request) bool {
	t, _, err := mime.ParseMediaType(r.Header.Get("Accept"))
	return err == nil && t == ContentTypeProgress
}

// serveStream answers r with f's waits as they happen, then its answer.
// The HTTP status is 200 whatever the answer: the last line says it.
func serveStream[Req, Resp any](w http.ResponseWriter, r *http.Request, req Req, f func(context.Context, Req) (Resp, error), fail func(error) *Error) {
	rc := http.NewResponseController(w)
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	write := func(l streamLine) {
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(l)
		_ = rc.Flush()
	}
	w.Header().Set("Content-Type", ContentTypeProgress)
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	ctx := withProgressSink(r.Context(), func(p reconcile.Progress) {
		write(streamLine{Progress: &Wait{Name: p.Name, Wait: p.Wait, PID: p.PID, Deadline: p.Deadline, Detail: p.Detail}})
	})
	resp, err := f(ctx, req)
	if err != nil {
		write(streamLine{Error: fail(err)})
		return
	}
	data, err := json.Marshal(resp)
	if err != nil {
		write(streamLine{Error: &Error{Message: "encoding the answer: " + err.Error(), Code: exitFailed}})
		return
	}
	write(streamLine{Result: data})
}

// readStream reads a streamed answer: each wait to progress (its text made
// one line: it is the loop's, read from a socket), then the answer.
func readStream[Resp any](body io.Reader, path string, progress reconcile.ProgressFunc) (Resp, error) {
	var zero Resp
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), MaxResponse)
	for sc.Scan() {
		var l streamLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return zero, fmt.Errorf("the loop's answer on %s: %w", path, err)
		}
		switch {
		case l.Error != nil:
			if l.Error.Message == "" || l.Error.Code == 0 {
				return zero, fmt.Errorf("the loop on %s answered an error with no message or code", path)
			}
			l.Error.Message = "the loop on " + path + ": " + l.Error.Message
			return zero, l.Error
		case l.Result != nil:
			var out Resp
			if err := json.Unmarshal(l.Result, &out); err != nil {
				return zero, fmt.Errorf("the loop's answer on %s: %w", path, err)
			}
			return out, nil
		case l.Progress != nil && progress != nil:
			p := l.Progress
			progress(reconcile.Progress{Name: ownership.OneLine(p.Name), Wait: reconcile.Wait(ownership.OneLine(string(p.Wait))), PID: p.PID, Deadline: p.Deadline, Detail: ownership.OneLine(p.Detail)})
		}
	}
	if err := sc.Err(); err != nil {
		return zero, fmt.Errorf("reading the loop's answer on %s: %w", path, err)
	}
	return zero, fmt.Errorf("the loop's answer on %s ended before its result", path)
}
