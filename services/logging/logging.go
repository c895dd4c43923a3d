// Package logging builds forge's loggers from [log]: the main logger
// (slog's default, which every package writes to) and the access logger,
// on the console, in rotated files, or both.
package logging

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"gopkg.in/natefinch/lumberjack.v2"

	"forge/services/config"
)

// Loggers are the configured loggers; Close flushes and closes their files.
type Loggers struct {
	Main *slog.Logger
	// Access is nil when [log] ENABLE_ACCESS_LOG is off.
	Access  *slog.Logger
	closers []io.Closer
}

// Close closes the log files.
func (l *Loggers) Close() error {
	var errs []error
	for _, c := range l.closers {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// MainFile and AccessFile are the files' names under ROOT_PATH.
const (
	MainFile   = "forge.log"
	AccessFile = "access.log"
)

// Open builds the loggers c describes; console lines go to console.
func Open(c config.Log, console io.Writer) (*Loggers, error) {
	level, ok := c.SlogLevel()
	if !ok {
		return nil, fmt.Errorf("config [log] LEVEL: %q is not a level", c.Level)
	}
	l := &Loggers{}
	opts := &slog.HandlerOptions{Level: level}
	accessOpts := &slog.HandlerOptions{Level: slog.LevelInfo} // access lines are written whatever LEVEL says
	var main, access []slog.Handler
	for _, mode := range c.Modes {
		switch mode {
		case "console":
			main = append(main, slog.NewTextHandler(console, opts))
			access = append(access, slog.NewTextHandler(console, accessOpts))
		case "file":
			if err := os.MkdirAll(c.RootPath, 0o750); err != nil {
				return nil, fmt.Errorf("config [log] ROOT_PATH: %w", err)
			}
			main = append(main, slog.NewTextHandler(l.file(c, MainFile), opts))
			if c.EnableAccessLog {
				access = append(access, slog.NewTextHandler(l.file(c, AccessFile), accessOpts))
			}
		default:
			return nil, fmt.Errorf("config [log] MODE: %q is not supported: forge writes to console and file only", mode)
		}
	}
	l.Main = slog.New(multi(main))
	if c.EnableAccessLog {
		l.Access = slog.New(multi(access))
	}
	return l, nil
}

func multi(hs []slog.Handler) slog.Handler {
	if len(hs) == 1 {
		return hs[0]
	}
	return slog.NewMultiHandler(hs...)
}

// file is ROOT_PATH/name, rotated by size when LOG_ROTATE is on.
func (l *Loggers) file(c config.Log, name string) io.Writer {
	path := filepath.Join(c.RootPath, name)
	size := 1 << c.MaxSizeShift >> 20 // MiB
	if !c.Rotate {
		size = 1 << 30 // lumberjack always rotates; a PiB never comes
	}
	w := &lumberjack.Logger{Filename: path, MaxSize: max(size, 1), MaxAge: c.MaxDays}
	l.closers = append(l.closers, w)
	return w
}
