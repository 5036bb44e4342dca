package telegram

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/relay"
)

// TopFile is the file in the daemon's state directory that holds the
// highest message id the transport was sent in the chat, as "<chat id>
// <message id>": a proven lower bound of the chat's newest message,
// which the id probe starts from (see chatTop).
const TopFile = "telegram-top"

// chatTop is the highest message id proven to exist in one chat: the
// bot's own posts and topics, the ids the relay's journal confirmed (Saw),
// and, through TopFile, every message the transport was sent (the
// transport saves it before the offset that confirms its updates, so a
// crash loses none it confirmed). Message ids in a supergroup are
// sequential, so a post made after this id was known lies above it: the
// relay journals it with each attempt as its After (relay.Floors) and a
// lookup starts its probe there (probeStart), which keeps the probe of a
// chat's first root short in a group with a long history. Known later,
// it is still a proven id, so a gap of missing ids below it is no top
// (Decide).
//
// A fresh bot that was sent nothing and posted nothing knows no top: a
// relay's first root is then probed from the chat's first id, and in a
// group with a long history that probe reaches its bound and the session
// waits (never a blind re-post).
type chatTop struct {
	chat string
	mu   sync.Mutex
	path string // TopFile; "" without a state directory
	id   int64
}

// newChatTop is chat's top, saved in dir's TopFile ("": in memory only).
func newChatTop(chat, dir string) *chatTop {
	t := &chatTop{chat: chat}
	if dir != "" {
		t.path = filepath.Join(dir, TopFile)
	}
	return t
}

// saw raises the top to id.
func (t *chatTop) saw(id int64) {
	t.mu.Lock()
	t.id = max(t.id, id)
	t.mu.Unlock()
}

// get is the highest id known: in memory, or saved by the transport
// (perhaps another process's, before a restart). A file that cannot be
// read adds nothing: a lower bound is only less useful, never wrong.
func (t *chatTop) get() int64 {
	t.mu.Lock()
	id, path := t.id, t.path
	t.mu.Unlock()
	if path == "" {
		return id
	}
	saved, _ := t.load(path)
	return max(id, saved)
}

// load reads path's top, 0 when it holds none for this chat (a top of
// another chat, after chatId changed, bounds nothing here).
func (t *chatTop) load(path string) (int64, error) {
	data, err := atomicfile.ReadCapped(path, 64)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading the telegram chat's top: %w", err)
	}
	chat, id, ok := strings.Cut(strings.TrimSpace(string(data)), " ")
	n, err := strconv.ParseInt(id, 10, 64)
	if !ok || err != nil || n < 0 {
		return 0, fmt.Errorf("%s holds no top (%d bytes)", path, len(data))
	}
	if chat != t.chat {
		return 0, nil
	}
	return n, nil
}

// save raises the saved top to the highest message id of the chat in
// ups, if that is higher; it returns once that is durable.
func (t *chatTop) save(ups []models.Update) error {
	id := int64(0)
	for _, u := range ups {
		for _, m := range []*models.Message{u.Message, u.EditedMessage} {
			if m != nil && strconv.FormatInt(m.Chat.ID, 10) == t.chat {
				id = max(id, int64(m.ID))
			}
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if id <= t.id {
		return nil
	}
	if t.path != "" {
		saved, _ := t.load(t.path)
		if id <= saved {
			t.id = saved
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
			return fmt.Errorf("saving the telegram chat's top: %w", err)
		}
		if err := atomicfile.Write(t.path, []byte(t.chat+" "+strconv.FormatInt(id, 10)+"\n")); err != nil {
			return fmt.Errorf("saving the telegram chat's top: %w", err)
		}
	}
	t.id = id
	return nil
}

// Floors implements relay.Poster: the id probe starts at the chat's top
// known before the attempt.
func (p *Poster) Floors() relay.Floors { return p }

// Floor implements relay.Floors: the higher of last (the last part done
// in the attempt's place) and the chat's top known now.
func (p *Poster) Floor(last string) string {
	top := p.top.get()
	id, err := strconv.ParseInt(last, 10, 64)
	switch {
	case top == 0 || id >= top:
		return last
	case last != "" && err != nil:
		return last // no message id: the lookup refuses it, as it did
	}
	return strconv.FormatInt(top, 10)
}

// Saw implements relay.Floors: an id the relay confirmed exists.
func (p *Poster) Saw(remoteID string) {
	if id, err := strconv.ParseInt(remoteID, 10, 64); err == nil && id > 0 {
		p.top.saw(id)
	}
}
