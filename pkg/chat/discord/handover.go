package discord

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	"gjc.dev/reconciler/pkg/atomicfile"
)

// HandoverFile is the file in the daemon's state directory
// (<agent-dir>/sdk/daemons/<name>/, ownership.PathsFor's Dir) through which a
// daemon that stops hands its gateway session to the next owner of its
// name, so that one RESUMEs instead of spending one of the day's
// IDENTIFYs. It holds no secret: the session id is useless without the
// token, and the token is named by its identity, a hash.
const HandoverFile = "discord-resume.json"

// handoverMax caps the file's size: a real one is about 300 bytes.
const handoverMax = 4096

// handover is the file's content.
type handover struct {
	// Identity is tokenIdentity of the bot token whose session this is:
	// a session is only ever resumed with the token that began it.
	Identity string `json:"token_identity"`
	resumeState
}

// tokenIdentity names a bot token without revealing it. A bot token is
// long and random, so its hash cannot be turned back into it.
func tokenIdentity(token string) string {
	sum := sha256.Sum256([]byte("reconciler discord handover\x00" + token))
	return hex.EncodeToString(sum[:])
}

// writeHandover leaves the session for the next owner: mode 0600,
// replaced atomically (a reader sees the old file or the new, whole).
func writeHandover(dir, identity string, r resumeState) error {
	data, err := json.Marshal(handover{Identity: identity, resumeState: r})
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, HandoverFile), data)
}

// errNoHandover is a directory without a handover file.
var errNoHandover = errors.New("no session handed over")

// takeHandover consumes the handover file in dir: it is removed before
// it is used, whatever it holds, so that at most one process ever
// resumes from it (a crash after the removal costs an IDENTIFY, never a
// session resumed twice). It is untrusted: a symbolic link, anything
// but a regular file of the effective uid that group and others cannot
// read or write, one over handoverMax bytes, another token's session or
// a malformed one is refused.
func takeHandover(dir, identity string) (*resumeState, error) {
	path := filepath.Join(dir, HandoverFile)
	fd, err := atomicfile.OpenNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNoHandover
	}
	if err != nil {
		return nil, atomicfile.ExplainOpenErr(path, err)
	}
	defer atomicfile.CloseFD(fd)
	// Consume once: unlink the name, then prove the inode held is the
	// one unlinked (no links left), so a file swapped in meanwhile is
	// not what is used.
	if err := os.Remove(path); err != nil {
		return nil, fmt.Errorf("removing %s before using it: %w", path, err)
	}
	st, err := atomicfile.Fstat(fd, path)
	if err != nil {
		return nil, err
	}
	if err := judgeHandoverFile(st, path); err != nil {
		return nil, err
	}
	data, err := atomicfile.ReadCappedFD(fd, path, handoverMax, st.Size)
	if err != nil {
		return nil, err
	}
	return parseHandover(data, identity)
}

// judgeHandoverFile refuses a file that is not one this uid wrote alone
// and consumed just now.
func judgeHandoverFile(st atomicfile.Stat, path string) error {
	switch uid := uint32(os.Geteuid()); {
	case !st.IsRegular():
		return fmt.Errorf("%s is not a regular file (mode %#o)", path, st.Mode)
	case st.UID != uid:
		return fmt.Errorf("%s is owned by uid %d, not %d", path, st.UID, uid)
	case st.Mode&0o077 != 0:
		return fmt.Errorf("%s is open to group or others (mode %#o)", path, st.Mode&0o7777)
	case st.Nlink != 0:
		return fmt.Errorf("%s was replaced while it was taken", path)
	case st.Size > handoverMax:
		return fmt.Errorf("%s is %d bytes, over %d", path, st.Size, handoverMax)
	}
	return nil
}

// parseHandover checks the file's JSON: exactly the fields written, a
// session of the token named identity, a websocket resume URL.
func parseHandover(data []byte, identity string) (*resumeState, error) {
	var h handover
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("the handover file is not a handover: %w", err)
	}
	if dec.More() {
		return nil, errors.New("the handover file holds more than one object")
	}
	if h.Identity != identity {
		return nil, errors.New("the handover file is another bot token's session")
	}
	u, err := url.Parse(h.URL)
	if !h.valid() || len(h.SessionID) > 128 || err != nil || (u.Scheme != "wss" && u.Scheme != "ws") || u.Host == "" {
		return nil, errors.New("the handover file holds no resumable session")
	}
	return &h.resumeState, nil
}

// takeHandover adopts the session the name's last owner handed over,
// if it left one for this token: the first connect RESUMEs it.
func (d *transport) takeHandover() {
	if d.opts.StateDir == "" {
		return
	}
	r, err := takeHandover(d.opts.StateDir, d.handoverIdentity())
	switch {
	case errors.Is(err, errNoHandover):
	case err != nil:
		d.opts.Log.Info("not resuming the session handed over; identifying", "why", err.Error())
	default:
		d.resume = r
		d.adopted.Store(true)
		d.opts.Log.Info("resuming the gateway session the last owner handed over", "seq", r.Seq)
	}
}

// handoverIdentity names the token and the intents a session was begun
// with: a RESUME keeps the old session's intents, so a spec that now
// asks others (MESSAGE_CONTENT for authorized users) must IDENTIFY, or
// replies would arrive without their text.
func (d *transport) handoverIdentity() string {
	return tokenIdentity(fmt.Sprintf("%s\x00intents=%d", d.cfg.BotToken.Reveal(), intents(d.cfg)))
}

// leaveHandover hands the session, left resumable, to the name's next
// owner.
func (d *transport) leaveHandover() {
	if d.opts.StateDir == "" || d.resume == nil {
		return
	}
	if err := writeHandover(d.opts.StateDir, d.handoverIdentity(), *d.resume); err != nil {
		d.opts.Log.Error(err, "the gateway session could not be handed over; the next owner identifies")
		return
	}
	d.opts.Log.Info("gateway session handed over to the next owner", "file", HandoverFile, "seq", d.resume.Seq)
}
