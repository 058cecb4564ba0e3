package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// maxBodyBytes bounds a request body read from a file: the services'
// default limit, so an oversized file fails here instead of mid-upload.
const maxBodyBytes = 1 << 20

// bodyFlags are the flags that make a request body: a JSON file and
// member assignments.
type bodyFlags struct {
	file string
	sets []string
}

// build returns the request body: the file as it is, or, with --set, the
// file's object (or an empty one) with the assigned members replaced. A
// --set value is read as JSON when it parses (numbers, true, arrays,
// "quoted strings"), else as a string.
func (b bodyFlags) build(stdin io.Reader) (json.RawMessage, error) {
	if b.file == "" && len(b.sets) == 0 {
		return nil, usagef("give the body with -f FILE.json (or -f - for standard input) and/or --set member=value")
	}
	raw := json.RawMessage(`{}`)
	if b.file != "" {
		var err error
		if raw, err = readJSONFile(b.file, stdin); err != nil {
			return nil, err
		}
	}
	if len(b.sets) == 0 {
		return raw, nil
	}
	obj := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("%s: %w", b.file, err)
	}
	for _, s := range b.sets {
		key, value, ok := strings.Cut(s, "=")
		if !ok || key == "" {
			return nil, usagef("--set %q: write member=value", s)
		}
		obj[key] = jsonValue(value)
	}
	return json.Marshal(obj)
}

// jsonValue reads v as a JSON value when it is one, else as a string.
func jsonValue(v string) json.RawMessage {
	if json.Valid([]byte(v)) {
		return json.RawMessage(v)
	}
	s, _ := json.Marshal(v)
	return s
}

// readJSONFile reads one JSON object from path ("-" is stdin).
func readJSONFile(path string, stdin io.Reader) (json.RawMessage, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxBodyBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > maxBodyBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes, the API's body limit", path, maxBodyBytes)
	}
	if err := checkObject(data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return bytes.TrimSpace(data), nil
}

// checkObject reports whether data is one JSON object.
func checkObject(data []byte) error {
	data = bytes.TrimSpace(data)
	if !json.Valid(data) {
		return errors.New("not valid JSON")
	}
	if len(data) == 0 || data[0] != '{' {
		return errors.New("not a JSON object")
	}
	return nil
}
