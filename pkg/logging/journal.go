package logging

import (
	"fmt"
	"io"
	"os"
	"syscall"

	"go.uber.org/zap/buffer"
	"go.uber.org/zap/zapcore"
)

// journald files every line of a service's stderr at the unit's default
// priority (info) unless the line starts with a "<N>" syslog priority prefix,
// which it strips. Without the prefix `journalctl -p err` finds none of our
// errors, so lines get one when, and only when, w is the stream journald
// gave us: JOURNAL_STREAM names its device and inode. A daemon's log file
// or a pipe into another program never gets the prefix, even though the
// variable is inherited.
func journalStream(w io.Writer, env string) bool {
	f, ok := w.(*os.File)
	if !ok || env == "" {
		return false
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	return sameStream(env, uint64(st.Dev), uint64(st.Ino))
}

// sameStream reports whether JOURNAL_STREAM's "device:inode" is dev and ino.
func sameStream(env string, dev, ino uint64) bool {
	var d, i uint64
	var rest string
	n, _ := fmt.Sscanf(env, "%d:%d%s", &d, &i, &rest)
	return n == 2 && d == dev && i == ino
}

// syslogPriority is the sd-daemon(3) prefix for a zap level: logr's V-levels
// above 0 are zap levels below Info, debug to the journal.
func syslogPriority(l zapcore.Level) string {
	switch {
	case l >= zapcore.DPanicLevel:
		return "<2>"
	case l >= zapcore.ErrorLevel:
		return "<3>"
	case l >= zapcore.WarnLevel:
		return "<4>"
	case l >= zapcore.InfoLevel:
		return "<6>"
	}
	return "<7>"
}

var prefixed = buffer.NewPool()

// priorityEncoder puts syslogPriority in front of each entry.
type priorityEncoder struct{ zapcore.Encoder }

func (e priorityEncoder) Clone() zapcore.Encoder { return priorityEncoder{e.Encoder.Clone()} }

func (e priorityEncoder) EncodeEntry(ent zapcore.Entry, fields []zapcore.Field) (*buffer.Buffer, error) {
	line, err := e.Encoder.EncodeEntry(ent, fields)
	if err != nil {
		return nil, err
	}
	defer line.Free()
	out := prefixed.Get()
	out.AppendString(syslogPriority(ent.Level))
	_, _ = out.Write(line.Bytes())
	return out, nil
}
