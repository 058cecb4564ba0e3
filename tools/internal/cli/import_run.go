package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/spf13/cobra"

	"github.com/municipal-apis/platform/pkg/client"
)

// outcome is what became of one record.
type outcome struct {
	line   int
	status int  // the API's answer; 0 when none came
	local  bool // the line was not sent: err says what is wrong with it
	replay bool // the service answered with the stored result of an earlier import
	id     string
	err    error
}

// runImport sends the records of path to r's collection with f.concurrency
// workers and prints the summary.
func (a *app) runImport(cmd *cobra.Command, r resource, path string, f importFlags) error {
	in, total, closeIn, err := a.openInput(path)
	if err != nil {
		return err
	}
	defer closeIn()
	c, err := a.client()
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	records := make(chan record)
	outcomes := make(chan outcome)
	readErr := make(chan error, 1)
	go func() { readErr <- readRecords(ctx, in, records) }()
	var wg sync.WaitGroup
	for range f.concurrency {
		wg.Go(func() {
			for rec := range records {
				if ctx.Err() != nil { // taken after the interruption: not sent
					outcomes <- outcome{line: rec.line, err: ctx.Err()}
					continue
				}
				// Sent before the interruption: it ends, so that what the
				// service stored is what the summary reports.
				outcomes <- importOne(context.WithoutCancel(ctx), c, r, rec)
			}
		})
	}
	go func() {
		wg.Wait()
		close(outcomes)
	}()
	bar := newProgress(a.env.Stderr, total, "importing "+r.name, !f.noProgress)
	s := newSummary(r.name, path)
	for o := range outcomes {
		s.add(o)
		bar.step()
	}
	bar.finish()
	if err := s.print(a.printer()); err != nil {
		return err
	}
	return s.result(<-readErr)
}

// importOne creates the resource of rec, with an Idempotency-Key that is the
// same whenever the same line of the same resource is imported again.
func importOne(ctx context.Context, c *client.Client, r resource, rec record) outcome {
	if rec.err != nil {
		return outcome{line: rec.line, local: true, err: rec.err}
	}
	var out json.RawMessage
	resp, err := c.Do(ctx, http.MethodPost, r.area, r.path, json.RawMessage(rec.body), &out,
		client.WithIdempotencyKey(importKey(r.name, rec)))
	o := outcome{line: rec.line, status: client.StatusOf(err), err: err}
	if err == nil {
		o.status, o.replay, o.id = resp.StatusCode, resp.Replayed, createdID(out)
	}
	return o
}

// importKey derives a record's Idempotency-Key from the resource, the line
// number and the content: a re-run replays, a different line is new.
func importKey(name string, rec record) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00", name, rec.line)
	h.Write(rec.body)
	return "import-" + hex.EncodeToString(h.Sum(nil))[:40]
}

// outcomeClass names the kind of an outcome for the summary: the status
// code, or what prevented an answer.
func outcomeClass(o outcome) string {
	switch {
	case o.status != 0:
		return strconv.Itoa(o.status) + " " + http.StatusText(o.status)
	case o.local:
		return "invalid line"
	case errors.Is(o.err, context.Canceled), errors.Is(o.err, context.DeadlineExceeded):
		return "interrupted"
	}
	return "no answer"
}
