package localapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// SendRequest is `reconciler send`: one message for the outbox of the
// daemon Name. A message without an id is given a new one; the command
// line makes its own, so that running it again is the same message.
type SendRequest struct {
	Name    string      `json:"name"`
	Message bus.Message `json:"message"`
}

// SendResponse is the id the message was published under and, when the
// daemon's verbosity will leave it out, a sentence saying so (send prints
// it on stderr).
type SendResponse struct {
	ID      string `json:"id"`
	LeftOut string `json:"leftOut,omitempty"`
}

// MaxSendRequest caps a send's body: the largest outbox file and room for
// the name and the wrapping. A message whose file would be larger is
// refused before it is sent (checkMessage), so only a request that no
// client of ours makes meets this cap.
const MaxSendRequest = bus.MaxFileSize + 4<<10

// checkMessage is what a send requires of its request before anything is
// written or sent: a daemon name, and a message valid as an outbox file
// (bus's rules, defaults applied, an id made if none). Each broken rule is
// the caller's mistake (exit 2), naming its field.
func checkMessage(req SendRequest) (bus.Message, error) {
	if msgs := spec.NameErrors(req.Name); len(msgs) > 0 {
		return bus.Message{}, badRequest("%q is not a daemon name: %s", req.Name, strings.Join(msgs, "; "))
	}
	m := req.Message
	if m.ID == "" {
		m.ID = bus.NewID()
	}
	m = m.WithDefaults()
	if errs := m.Validate(); len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return bus.Message{}, badRequest("message %q: %s", m.ID, strings.Join(msgs, "; "))
	}
	// bus.Write refuses a file over bus.MaxFileSize too, but not as a
	// field's mistake: judged here, a text whose escapes make it too big
	// is a usage error like one that is too long.
	if n, err := encodedSize(m); err != nil {
		return bus.Message{}, fmt.Errorf("message %q: %w", m.ID, err)
	} else if n > bus.MaxFileSize {
		return bus.Message{}, badRequest("message %q: text: the message encodes to %d bytes, over %d", m.ID, n, bus.MaxFileSize)
	}
	return m, nil
}

// encodedSize is the length of m's outbox file, encoded as bus encodes it.
func encodedSize(m bus.Message) (int, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return 0, err
	}
	return buf.Len(), nil
}

// checkSendName is whether a message may be queued for name, given the
// spec result res of whoever answers (the loop's, or this process's) and
// whether the name has a daemon dir: the spec must declare it. A spec that
// is invalid as read here (a shell without the spec's fromEnv tokens)
// cannot say, so a daemon dir stands in for it, as for stop and start.
func checkSendName(res *spec.Result, name string, hasDir bool) error {
	switch {
	case res.Lookup(name) != nil:
		return nil
	case res.Valid():
		return badRequest("unknown daemon %q: not in the spec", name)
	case hasDir:
		return nil
	}
	return badRequest("unknown daemon %q: not in the spec as read here and no daemon dir (the spec is invalid as read here: %d error(s); run reconciler validate)", name, len(res.Errors))
}

// send is a send with the spec result res: the name judged, then the
// bus's directories made (private), the session checked open, and the
// message published in the outbox, whole or not at all. The same id with
// the same content again is success, one file; with other content an
// error naming the id (exit 1), as is a message for a closed session.
func send(ctx context.Context, agentDir string, res *spec.Result, req SendRequest) (*SendResponse, error) {
	m, err := checkMessage(req)
	if err != nil {
		return nil, err
	}
	_, err = os.Lstat(ownership.PathsFor(agentDir, req.Name).Dir)
	if err := checkSendName(res, req.Name, err == nil); err != nil {
		return nil, err
	}
	dirs, err := bus.Paths(agentDir, req.Name)
	if err != nil {
		return nil, badRequest("%v", err)
	}
	if err := bus.EnsureDirs(dirs); err != nil {
		return nil, fmt.Errorf("send to %s: %w", req.Name, err)
	}
	if err := checkOpen(ctx, req.Name, dirs, m); err != nil {
		return nil, err
	}
	id, err := bus.Write(dirs.Outbox, m)
	if err != nil {
		return nil, fmt.Errorf("send to %s: %w", req.Name, err)
	}
	return &SendResponse{ID: id, LeftOut: leftOutNote(req.Name, res.Lookup(req.Name), m)}, nil
}

// Send asks the loop to publish the message: checked here first, so a
// mistake is told without the loop, and what is sent fits the endpoint.
func (c *Client) Send(ctx context.Context, req SendRequest) (*SendResponse, error) {
	m, err := checkMessage(req)
	if err != nil {
		return nil, err
	}
	req.Message = m
	return call[*SendResponse](ctx, c, PathSend, req, readBound)
}

// Send publishes the message with the loop's spec: the loop's word on
// which names exist, whatever the caller's shell holds.
func (b *LoopBackend) Send(ctx context.Context, req SendRequest) (*SendResponse, error) {
	res, err := b.Loop.Spec(ctx)
	if err != nil {
		return nil, err
	}
	return send(ctx, b.AgentDir, res, req)
}

// Send publishes the message from this process, with the spec as read here.
func (d *Direct) Send(ctx context.Context, req SendRequest) (*SendResponse, error) {
	return send(ctx, d.AgentDir, spec.LoadOnce(d.SpecPath), req)
}
