package relay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

// floorRelay is the least an exactly-once relay does per message, the
// floor the relay's own cost is measured against (issue 34): a watch
// names the new file, it is read once, an intent line is appended to a
// journal and fsynced, one POST goes over a kept-alive connection, a done
// line is appended and fsynced, and the file is renamed into sent/. It has
// no sessions, threads, splitting, rate limits, ownership or recovery: it
// is a yardstick, not a relay.
type floorRelay struct {
	outbox, sent string
	journal      *os.File
	client       *http.Client
	url, auth    string
	w            *fsnotify.Watcher
	done         chan struct{}
}

func startFloor(b *testing.B, f *fakediscord.Server, token, channel string) *floorRelay {
	b.Helper()
	root := b.TempDir()
	fl := &floorRelay{
		outbox: filepath.Join(root, "outbox"), sent: filepath.Join(root, "sent"),
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}},
		url:    f.URL() + "/api/v10/channels/" + channel + "/messages", auth: "Bot " + token,
		done: make(chan struct{}),
	}
	for _, d := range []string{fl.outbox, fl.sent} {
		if err := os.Mkdir(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	var err error
	if fl.journal, err = os.OpenFile(filepath.Join(root, "journal"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err != nil {
		b.Fatal(err)
	}
	if fl.w, err = fsnotify.NewWatcher(); err != nil {
		b.Fatal(err)
	}
	if err := fl.w.Add(fl.outbox); err != nil {
		b.Fatal(err)
	}
	go fl.run(b)
	b.Cleanup(func() {
		fl.w.Close()
		<-fl.done
		fl.journal.Close()
	})
	return fl
}

func (fl *floorRelay) run(b *testing.B) {
	defer close(fl.done)
	for ev := range fl.w.Events {
		base := filepath.Base(ev.Name)
		if !ev.Has(fsnotify.Create) || strings.HasPrefix(base, ".") {
			continue
		}
		if err := fl.relay(base); err != nil {
			b.Error(err)
			return
		}
	}
}

func (fl *floorRelay) relay(base string) error {
	path := filepath.Join(fl.outbox, base)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var m bus.Message
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("%s: %w", base, err)
	}
	if err := fl.log("attempt " + m.ID); err != nil {
		return err
	}
	nonce := m.ID[max(0, len(m.ID)-25):] // Discord takes at most 25 characters
	body, _ := json.Marshal(map[string]any{"content": m.Text, "nonce": nonce, "enforce_nonce": true, "allowed_mentions": map[string]any{"parse": []string{}}})
	req, err := http.NewRequest(http.MethodPost, fl.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", fl.auth)
	req.Header.Set("Content-Type", "application/json")
	resp, err := fl.client.Do(req)
	if err != nil {
		return err
	}
	var posted struct{ ID string }
	err = json.NewDecoder(resp.Body).Decode(&posted)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST: %d %v", resp.StatusCode, err)
	}
	if err := fl.log("done " + m.ID + " " + posted.ID); err != nil {
		return err
	}
	return os.Rename(path, filepath.Join(fl.sent, base))
}

func (fl *floorRelay) log(line string) error {
	if _, err := fl.journal.WriteString(line + "\n"); err != nil {
		return err
	}
	return fl.journal.Sync()
}

// BenchmarkRelayOverFloor: the relay (relay.New with the real Discord
// poster) and the floor side by side on one fake, one message at a time,
// a round of each per iteration so both see the same load. ratio-p50 is
// the relay's p50 over the floor's; goal (issue 34): at most 1.3.
func BenchmarkRelayOverFloor(b *testing.B) {
	g := newBenchRig(b, "discord")
	g.start()
	g.openSession("s")
	fl := startFloor(b, g.fd, benchToken, benchParent)
	var relayLat, floorLat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		marker := fmt.Sprintf("floor %d.", i)
		t0 := time.Now()
		if _, err := bus.Write(fl.outbox, bus.Message{Session: "s", Text: marker}); err != nil {
			b.Fatal(err)
		}
		g.stored(marker, 1)
		floorLat = append(floorLat, time.Since(t0))
		drained(b, fl.outbox) // its done fsync and rename do not fall in the relay's round

		marker = fmt.Sprintf("relay %d.", i)
		t0 = time.Now()
		g.write(bus.Message{Session: "s", Text: marker})
		g.stored(marker, 1)
		relayLat = append(relayLat, time.Since(t0))
		drained(b, g.dirs.Outbox)
	}
	b.StopTimer()
	fp50, rp50 := percentile(floorLat, 0.50), percentile(relayLat, 0.50)
	b.ReportMetric(ms(fp50), "floor-p50-ms")
	b.ReportMetric(ms(rp50), "relay-p50-ms")
	b.ReportMetric(ms(percentile(relayLat, 0.99)), "relay-p99-ms")
	b.ReportMetric(float64(rp50)/float64(fp50), "ratio-p50")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkBurstOverFloor: 1,000 messages dropped into the outbox at once
// for one session, to all stored at the fake: the relay's pace over the
// floor's (goal, issue 34: at least 0.8), each measured on its own fake.
func BenchmarkBurstOverFloor(b *testing.B) {
	const n = 1000
	var relayPace, floorPace []float64
	for i := range b.N {
		g := newBenchRig(b, "discord")
		g.start()
		g.openSession("s")
		marker := fmt.Sprintf("burst %d.", i)
		t0 := time.Now()
		for j := range n {
			g.write(bus.Message{Session: "s", Text: fmt.Sprintf("%s%d", marker, j)})
		}
		waitCount(b, g.fd, marker, n)
		relayPace = append(relayPace, n/time.Since(t0).Seconds())

		f2 := newBenchRig(b, "discord")
		fl := startFloor(b, f2.fd, benchToken, benchParent)
		t0 = time.Now()
		for j := range n {
			if _, err := bus.Write(fl.outbox, bus.Message{Session: "s", Text: fmt.Sprintf("%s%d", marker, j)}); err != nil {
				b.Fatal(err)
			}
		}
		waitCount(b, f2.fd, marker, n)
		floorPace = append(floorPace, n/time.Since(t0).Seconds())
	}
	r, f := median(relayPace), median(floorPace)
	b.ReportMetric(r, "relay-msg/s")
	b.ReportMetric(f, "floor-msg/s")
	b.ReportMetric(r/f, "ratio")
	b.ReportMetric(0, "ns/op")
}

// drained waits, outside the measured time, until dir holds no message:
// the relay that took the last one has finished with it.
func drained(b *testing.B, dir string) {
	b.Helper()
	b.StopTimer()
	defer b.StartTimer()
	deadline := time.Now().Add(time.Minute)
	for {
		entries, err := os.ReadDir(dir)
		if err != nil {
			b.Fatal(err)
		}
		if len(entries) == 0 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s still holds %d entries after a minute", dir, len(entries))
		}
		time.Sleep(100 * time.Microsecond) // a poll: the relays signal nothing here
	}
}

// waitCount waits until the fake holds n messages containing marker,
// counting the messages since the last look only.
func waitCount(b *testing.B, f *fakediscord.Server, marker string, n int) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	seen, count := 0, 0
	if _, err := f.WaitFor(ctx, func(s fakediscord.Snapshot) bool {
		for _, m := range s.Messages[seen:] {
			if strings.Contains(m.Content, marker) {
				count++
			}
		}
		seen = len(s.Messages)
		return count >= n
	}); err != nil {
		b.Fatalf("%d of %d messages stored: %v", count, n, err)
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
