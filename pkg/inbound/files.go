package inbound

import (
	"context"
	"errors"
	"fmt"
	"io"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/bus"
)

// Files attached to a reply (DESIGN 5, "Files") land with it, exactly
// once, and never without it: they are fetched, with the landing's lock
// not held (a download must hold back no other landing, nor a Slack
// ack), into a stage directory beside the reply's stage; then the reply
// lands as any does (stage, record, publish), its JSON listing each file
// as landed or skipped and why, and publishing renames the files' stage
// before the reply's. A file the service says is over MaxFileBytes is
// not fetched, nor one Fetch finds over it, nor one it refuses for good
// (a URL off the service's file hosts): each is listed skipped with why.
// Any other failure to fetch is transient: the reply is owed, tried
// again, and does not land until its files do.

// DefaultMaxFileBytes is Options.MaxFileBytes when unset: the spec's
// default maxInboundFileBytes.
const DefaultMaxFileBytes = 10 << 20

// fetchedFiles are a reply's files, fetched into their stage.
type fetchedFiles struct {
	stage *bus.FilesStage
	files []bus.InboxFile
	// recording: the landing went as far as appending its record, so the
	// stage is the record's if that became durable, and stays.
	recording bool
}

// errNeedsFetch is landLocked's answer for a reply with files that would
// land, and has none fetched yet.
type errNeedsFetch struct{ session string }

func (errNeedsFetch) Error() string { return "the reply's files are not fetched yet" }

// landWithFiles lands ev, a reply with files: decided first, under the
// lock, so that nothing is fetched for a reply that will not land; its
// files fetched without the lock, one fetch of a reply at a time; then
// decided again and landed with them.
func (in *Inbound) landWithFiles(ctx context.Context, ev Event) (Outcome, error) {
	for {
		in.mu.Lock()
		o, err := in.landLocked(ctx, ev, nil)
		var need errNeedsFetch
		if !errors.As(err, &need) {
			in.mu.Unlock()
			return o, err
		}
		if busy, ok := in.fetching[ev.ID]; ok {
			// Another delivery of it (live and a history read) fetches
			// into the same stage: wait for its outcome, and look again.
			in.mu.Unlock()
			select {
			case <-busy:
				continue
			case <-ctx.Done():
				return 0, fmt.Errorf("reply %s: waiting for its files: %w", ev.ID, ctx.Err())
			}
		}
		done := make(chan struct{})
		in.fetching[ev.ID] = done
		in.mu.Unlock()
		o, err = in.fetchAndLand(ctx, ev, need.session)
		in.mu.Lock()
		delete(in.fetching, ev.ID)
		close(done)
		in.mu.Unlock()
		return o, err
	}
}

// fetchAndLand fetches ev's files and lands ev with them. The stage is
// removed unless the landing went as far as its record.
func (in *Inbound) fetchAndLand(ctx context.Context, ev Event, session string) (Outcome, error) {
	fetched, err := in.fetch(ctx, ev, session)
	if err != nil {
		in.mu.Lock()
		defer in.mu.Unlock()
		in.owe(ev, session)
		return 0, in.failed(fmt.Errorf("landing %s: %w", ev.ID, err))
	}
	in.opts.Step(StepFetched, ev.ID)
	in.mu.Lock()
	o, err := in.landLocked(ctx, ev, fetched)
	in.mu.Unlock()
	if !fetched.recording {
		if derr := fetched.stage.Discard(); derr != nil {
			in.opts.Log.Error(derr, "removing the files of a reply that did not land; the next start removes them", "message", ev.ID)
		}
	}
	return o, err
}

// fetch fetches ev's files into their stage, durably, and lists them. An
// error is transient (nothing is left staged): the reply waits.
func (in *Inbound) fetch(ctx context.Context, ev Event, session string) (*fetchedFiles, error) {
	file, err := bus.InboxFileName(bus.InboxMessage{ID: ev.ID, TS: bus.InboxTime(ev.Time)})
	if err != nil {
		return nil, err
	}
	stage, err := bus.StageInboxFiles(in.opts.Bus, session, file)
	if err != nil {
		return nil, err
	}
	remote := ev.Files
	if len(remote) > bus.MaxInboxFiles {
		in.opts.Log.Info("a reply has more files than the inbox lists; the rest are left out", "message", ev.ID, "files", len(remote), "listed", bus.MaxInboxFiles)
		remote = remote[:bus.MaxInboxFiles]
	}
	files := make([]bus.InboxFile, 0, len(remote))
	for _, rf := range remote {
		f, err := in.fetchOne(ctx, stage, file, rf)
		if err != nil {
			_ = stage.Discard()
			return nil, fmt.Errorf("file %q: %w", rf.Name, err)
		}
		files = append(files, f)
	}
	if err := stage.Done(); err != nil {
		_ = stage.Discard()
		return nil, err
	}
	return &fetchedFiles{stage: stage, files: files}, nil
}

// fetchOne fetches rf into stage, or says why it is skipped.
func (in *Inbound) fetchOne(ctx context.Context, stage *bus.FilesStage, file string, rf RemoteFile) (bus.InboxFile, error) {
	limit := in.opts.MaxFileBytes
	f := bus.InboxFile{Size: max(rf.Size, 0), ContentType: contentType(rf.ContentType)}
	if rf.Size > limit {
		f.Name = stage.Reserve(rf.Name)
		f.Skipped = overLimit(rf.Size, limit)
		return withOriginal(f, rf.Name), nil
	}
	if why := refusedURL(rf.URL); why != "" {
		f.Name = stage.Reserve(rf.Name)
		f.Skipped = why
		return withOriginal(f, rf.Name), nil
	}
	name, w, err := stage.Create(rf.Name)
	if err != nil {
		return f, err
	}
	f.Name = name
	cw := &capWriter{w: w, left: limit}
	n, err := in.opts.Service.Fetch(ctx, rf, limit, cw)
	if err == nil && !cw.over {
		err = atomicfile.SyncFile(w)
	}
	if cerr := w.Close(); err == nil && !cw.over {
		err = cerr
	}
	var perm *PermanentError
	switch {
	case cw.over || errors.Is(err, ErrTooLarge):
		// The service said less, or nothing: what came says more.
		f.Size = max(rf.Size, n, limit+1)
		f.Skipped = "more than " + fileSize(limit) + ", over maxInboundFileBytes " + limitSize(limit)
	case errors.As(err, &perm):
		f.Skipped = skipReason("not fetched: " + perm.Error())
	case err != nil:
		_ = stage.Remove(name)
		return f, err
	default:
		f.Size = cw.written
		f.Path = bus.InboxFilePath(file, name)
		return withOriginal(f, rf.Name), nil
	}
	if err := stage.Remove(name); err != nil {
		return f, err
	}
	return withOriginal(f, rf.Name), nil
}

// capWriter passes at most left bytes on and refuses the rest: the size
// cap holds at the inbound side, whatever a service's Fetch does.
type capWriter struct {
	w             io.Writer
	left, written int64
	over          bool
}

func (c *capWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > c.left {
		c.over = true
		n, err := c.w.Write(p[:c.left])
		c.left -= int64(n)
		c.written += int64(n)
		if err == nil {
			err = ErrTooLarge
		}
		return n, err
	}
	n, err := c.w.Write(p)
	c.left -= int64(n)
	c.written += int64(n)
	return n, err
}

// countFiles counts the files of reply id, landed, and says which were
// skipped: the agent reads why in the reply, the operator in the log.
// in.mu is held.
func (in *Inbound) countFiles(id string, files []bus.InboxFile) {
	for _, f := range files {
		if f.Skipped != "" {
			in.health.Files.Skipped++
			in.opts.Log.Info("a file of a reply is listed skipped, not landed", "message", id, "file", f.Name, "why", f.Skipped)
			continue
		}
		in.health.Files.Landed++
		in.health.Files.Bytes += f.Size
	}
}
