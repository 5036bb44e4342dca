package fleetbus_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/ownership/etcdstore/etcdtest"
)

// fileService serves one file to Fetch.
type fileService struct {
	quietService
	content []byte
}

func (s fileService) Fetch(_ context.Context, _ inbound.RemoteFile, _ int64, w io.Writer) (int64, error) {
	n, err := w.Write(s.content)
	return int64(n), err
}

// A reply's files stay on the machine whose daemon landed it: the reply,
// its files listed, reaches every machine's inbox byte for byte; the
// files directory reaches none, and a listed file is not there
// (LandedFile says so) rather than anything else under its name.
func TestInboxFilesStayOnTheLandingMachine(t *testing.T) {
	c := etcdtest.Start(t, etcdtest.Options{Members: 1})
	ms := []*machine{newMachine(t, c), newMachine(t, c)}
	for _, m := range ms {
		m.start()
	}
	o := newOwnerOf(t, ms[0], fileService{content: []byte("pixels")})
	ev := inbound.Event{ID: "1001", Place: "T1", User: "alice", Text: "see", Time: time.Now().Add(-time.Minute).Truncate(time.Millisecond),
		Files: []inbound.RemoteFile{{ID: "f1", Name: "shot.png", Size: 6, ContentType: "image/png", URL: "https://files.test/shot.png"}}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if out, err := o.in.Receive(ctx, ev); err != nil || out != inbound.Landed {
		t.Fatalf("landing: %v, %v", out, err)
	}
	m := bus.InboxMessage{ID: ev.ID, Session: "s1", User: "alice", Text: "see", TS: bus.InboxTime(ev.Time)}
	file, _ := bus.InboxFileName(m)
	m.Files = []bus.InboxFile{{Name: "shot.png", Path: bus.InboxFilePath(file, "shot.png"), Size: 6, ContentType: "image/png"}}
	data, err := bus.EncodeInbox(m)
	if err != nil {
		t.Fatal(err)
	}
	reply, shot := filepath.Join("inbox", "s1", file), filepath.Join("inbox", "s1", m.Files[0].Path)
	waitFor(t, "the reply and its file on the landing machine", func() bool {
		return same(ms[0].files(), map[string]string{reply: string(data), shot: "pixels"})
	})
	var seen map[string]string
	waitForShowing(t, "the reply alone on the other machine", func() bool {
		seen = ms[1].files()
		return same(seen, map[string]string{reply: string(data)})
	}, func() string { return fmt.Sprintf("(it holds %q)", seen) })
	for i, want := range []error{nil, fs.ErrNotExist} {
		if _, err := bus.LandedFile(ms[i].dirs, "s1", m.Files[0]); !errors.Is(err, want) && err != want {
			t.Errorf("machine %d: LandedFile = %v, want %v", i+1, err, want)
		}
	}
}
