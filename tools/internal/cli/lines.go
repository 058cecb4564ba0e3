package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
)

// record is one non-blank line of an import file.
type record struct {
	line int    // 1-based line number
	body []byte // the line without surrounding space
	err  error  // why the line cannot be sent, if it cannot
}

// readRecords sends the non-blank lines of r to out until r ends or ctx is
// done, then closes out. A line over maxBodyBytes or that is not one JSON
// object becomes a record with err set; reading goes on after it.
func readRecords(ctx context.Context, r io.Reader, out chan<- record) error {
	defer close(out)
	br := bufio.NewReaderSize(r, maxBodyBytes+1)
	for line := 1; ; line++ {
		rec, err := nextRecord(br, line)
		if rec.body != nil || rec.err != nil {
			select {
			case out <- rec:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read line %d: %w", line, err)
		}
	}
}

// nextRecord reads line number n; a blank line gives an empty record.
func nextRecord(br *bufio.Reader, n int) (record, error) {
	data, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		if err := skipLine(br); err != nil && !errors.Is(err, io.EOF) {
			return record{}, err
		}
		return record{line: n, err: fmt.Errorf("longer than %d bytes, the API's body limit", maxBodyBytes)}, nil
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return record{}, err
	}
	rec := record{line: n, body: bytes.Clone(data)}
	if cerr := checkObject(data); cerr != nil {
		rec = record{line: n, err: cerr}
	}
	return rec, err
}

// skipLine discards the rest of the current line.
func skipLine(br *bufio.Reader) error {
	for {
		_, err := br.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

// countLines counts the non-blank lines of r.
func countLines(r io.Reader) (int64, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var n int64
	blank := true
	for {
		b, err := br.ReadByte()
		if errors.Is(err, io.EOF) {
			if !blank {
				n++
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
		switch {
		case b == '\n':
			if !blank {
				n++
			}
			blank = true
		case b != ' ' && b != '\t' && b != '\r':
			blank = false
		}
	}
}
