package relay

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// fakePoster is a chat service in memory: places (the channel "" and
// threads) holding messages in order, each with the key it was posted
// with, as Slack's metadata keeps it. Faults are switched by the tests.
type fakePoster struct {
	mu       sync.Mutex
	next     int
	places   map[string][]fakeMsg // "" is the channel
	threads  map[string]string    // root id -> thread id
	edits    map[string]string    // message id -> text
	archived map[string]bool
	posts    []postCall // every Post, in order, with its time
	edited   []editCall // every Edit, in order, with its time
	changed  chan struct{}

	channelErr   error  // CheckChannel's answer
	checks       int    // CheckChannel calls
	blocked      error  // every request fails with it while set
	refuse       string // a text containing it is refused
	acceptFail   int    // the next n posts are stored, then "lost"
	rateLimitN   int    // the next n posts get a 429
	retryAfter   time.Duration
	limitSession string // only posts of this session are limited ("" all)

	placesAlike bool         // its lookups cannot tell places apart (PlacesApart false), as Telegram's
	limits      FileLimits   // Files' answer
	stage       bool         // an upload stages a token first (Slack's file id)
	staged      []string     // every Part.Staged a Post or Lookup was given
	uploads     []fakeUpload // every file taken, in order
	// beforeUpload, when set, runs once before the next upload is read.
	beforeUpload func()
}

type fakeMsg struct {
	id, key, text string
	file          *fakeUpload
}

// fakeUpload is a file as the fake took it: read whole through the
// upload's Open, streamed into its sum.
type fakeUpload struct {
	key, name, ctype, sum string
	size                  int64
}

type editCall struct {
	remote, text string
	at           time.Time
}

type postCall struct {
	key     string
	at      time.Time
	limited bool
	choices []Choice
	ping    []string
}

func newFakePoster() *fakePoster {
	return &fakePoster{places: map[string][]fakeMsg{}, threads: map[string]string{}, edits: map[string]string{},
		archived: map[string]bool{}, changed: make(chan struct{}, 1),
		limits: FileLimits{MaxBytes: 10 << 20, MaxFiles: 10, Service: "Fake"}}
}

func (f *fakePoster) poke() {
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

func (f *fakePoster) PartLimit() int { return 100 }

func (f *fakePoster) CheckChannel(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.poke()
	f.checks++
	return f.channelErr
}

func (f *fakePoster) Post(ctx context.Context, p Part) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.poke()
	call := postCall{key: p.Key, at: time.Now(), choices: p.Choices, ping: p.Ping}
	if f.blocked != nil {
		f.posts = append(f.posts, call)
		return "", f.blocked
	}
	if f.rateLimitN > 0 && (f.limitSession == "" || f.limitSession == p.Session) {
		f.rateLimitN--
		call.limited = true
		f.posts = append(f.posts, call)
		return "", &Error{Kind: RateLimited, RetryAfter: f.retryAfter}
	}
	f.posts = append(f.posts, call)
	if f.refuse != "" && strings.Contains(p.Text, f.refuse) {
		return "", &Error{Kind: Refused, Code: "50035", Err: errors.New("Invalid Form Body")}
	}
	if _, ok := f.places[p.Thread]; !ok && p.Thread != "" && !f.isThread(p.Thread) {
		return "", &Error{Kind: Blocked, Reason: ReasonRelayBlocked, Code: "10003", Err: errors.New("Unknown Channel")}
	}
	var up *fakeUpload
	if p.Upload != nil {
		f.staged = append(f.staged, p.Staged)
		if f.stage && p.Staged == "" {
			if err := p.Stage(ctx, "F"+strconv.Itoa(1000+f.next+1)); err != nil {
				return "", err
			}
		}
		if f.beforeUpload != nil {
			f.beforeUpload()
			f.beforeUpload = nil
		}
		u, err := readUpload(p)
		if err != nil {
			return "", err
		}
		up = &u
		f.uploads = append(f.uploads, u)
	}
	f.next++
	id := strconv.Itoa(1000 + f.next)
	f.places[p.Thread] = append(f.places[p.Thread], fakeMsg{id: id, key: p.Key, text: p.Text, file: up})
	if f.acceptFail > 0 {
		f.acceptFail--
		return "", errors.New("502 Bad Gateway after the message was stored")
	}
	return id, nil
}

func (f *fakePoster) isThread(id string) bool {
	for _, t := range f.threads {
		if t == id {
			return true
		}
	}
	return false
}

func (f *fakePoster) StartThread(_ context.Context, rootID, _ string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.blocked != nil {
		return "", f.blocked
	}
	if t, ok := f.threads[rootID]; ok {
		return t, nil
	}
	t := "t" + rootID
	f.threads[rootID] = t
	return t, nil
}

func (f *fakePoster) Edit(_ context.Context, e EditRequest) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.poke()
	if f.blocked != nil {
		return f.blocked
	}
	f.edited = append(f.edited, editCall{remote: e.RemoteID, text: e.Text, at: time.Now()})
	f.edits[e.RemoteID] = e.Text
	return nil
}

func (f *fakePoster) Archive(_ context.Context, thread string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.poke()
	if f.blocked != nil {
		return f.blocked
	}
	f.archived[thread] = true
	return nil
}

// Lookup finds by key, after the given id, as Slack's metadata lookup does.
func (f *fakePoster) Lookup(_ context.Context, p Part, after string) (string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.blocked != nil {
		return "", false, f.blocked
	}
	if p.Upload != nil {
		f.staged = append(f.staged, p.Staged)
	}
	for _, m := range f.places[p.Thread] {
		if after != "" && m.id <= after {
			continue
		}
		if m.key == p.Key {
			return m.id, true, nil
		}
	}
	return "", false, nil
}

// texts returns the texts of a place, in order.
func (f *fakePoster) texts(place string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, m := range f.places[place] {
		out = append(out, m.text)
	}
	return out
}

// sessionThread finds the thread whose root text mentions session.
func (f *fakePoster) sessionThread(session string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.places[""] {
		if strings.Contains(m.text, "`"+session+"`") {
			return f.threads[m.id]
		}
	}
	return ""
}

func (f *fakePoster) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fmt.Sprintf("%v", f.places)
}

// Threads is nil: the fake's StartThread is safe to repeat.
func (f *fakePoster) Threads() ThreadLookup { return nil }

func (f *fakePoster) PlacesApart() bool { return !f.placesAlike }

// Floors is nil: the fake's lookup goes by key.
func (f *fakePoster) Floors() Floors { return nil }

func (f *fakePoster) Files() FileLimits {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.limits
}

// readUpload reads p's file as a service takes it, streamed: never held
// whole.
func readUpload(p Part) (fakeUpload, error) {
	u := p.Upload
	rc, err := u.Open()
	if err != nil {
		return fakeUpload{}, err
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, rc)
	if err != nil {
		return fakeUpload{}, err
	}
	// What arrived, as a service takes it: the tests compare its sum to
	// the content they wrote (the relay's own checks are what they test).
	return fakeUpload{key: p.Key, name: u.Name, ctype: u.ContentType, sum: hex.EncodeToString(h.Sum(nil)), size: n}, nil
}

// files are the files of a place, in order.
func (f *fakePoster) files(place string) []fakeUpload {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fakeUpload
	for _, m := range f.places[place] {
		if m.file != nil {
			out = append(out, *m.file)
		}
	}
	return out
}
