package cli

import (
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress draws a progress bar of an import on standard error.
type progress struct {
	bar *progressbar.ProgressBar
}

// newProgress starts a bar of total steps (-1 when unknown) on w; a bar
// that is not visible draws nothing.
func newProgress(w io.Writer, total int64, description string, visible bool) progress {
	return progress{bar: progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetVisibility(visible),
		progressbar.OptionSetDescription(description),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("lines"),
		progressbar.OptionThrottle(100*time.Millisecond),
		// No spinner ticker: for a bar of unknown length (stdin) the
		// library starts a goroutine that reads the bar's state without
		// its lock, a data race the race detector caught in CI. The
		// spinner turns as lines come instead.
		progressbar.OptionSetSpinnerChangeInterval(0),
		progressbar.OptionOnCompletion(func() { _, _ = io.WriteString(w, "\n") }),
	)}
}

func (p progress) step() { _ = p.bar.Add(1) }

func (p progress) finish() { _ = p.bar.Finish() }
