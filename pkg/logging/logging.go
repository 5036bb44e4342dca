// Package logging builds the project's logr.Logger: zap underneath, JSON for
// machines and console lines for people.
package logging

import (
	"fmt"
	"io"
	"os"

	"github.com/go-logr/logr"
	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"golang.org/x/term"
)

// Formats accepted by New.
const (
	FormatJSON    = "json"
	FormatConsole = "console"
	// FormatAuto is console on a terminal and JSON otherwise, so a person at a
	// shell reads lines and a service manager's journal gets structure.
	FormatAuto = ""
)

// New returns a logger writing to w. Verbosity enables logr V-levels up to it.
func New(w io.Writer, format string, verbosity int) (logr.Logger, error) {
	if verbosity < 0 {
		return logr.Discard(), fmt.Errorf("verbosity %d: must be >= 0", verbosity)
	}
	if format == FormatAuto {
		format = FormatJSON
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			format = FormatConsole
		}
	}
	var enc zapcore.Encoder
	switch format {
	case FormatJSON:
		cfg := zap.NewProductionEncoderConfig()
		cfg.EncodeTime = zapcore.RFC3339NanoTimeEncoder
		enc = zapcore.NewJSONEncoder(cfg)
	case FormatConsole:
		cfg := zap.NewDevelopmentEncoderConfig()
		cfg.EncodeTime = zapcore.TimeEncoderOfLayout("15:04:05.000")
		enc = zapcore.NewConsoleEncoder(cfg)
	default:
		return logr.Discard(), fmt.Errorf("log format %q: must be %s or %s", format, FormatJSON, FormatConsole)
	}
	if journalStream(w, os.Getenv("JOURNAL_STREAM")) {
		enc = priorityEncoder{enc}
	}
	// zapr maps V(n) to zap level -n.
	level := zap.NewAtomicLevelAt(zapcore.Level(-verbosity))
	core := zapcore.NewCore(enc, zapcore.AddSync(w), level)
	return zapr.NewLogger(zap.New(core)), nil
}
