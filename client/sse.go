package client

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// eventReader reads the data of server-sent events, each bounded.
type eventReader struct {
	r   *bufio.Reader
	max int64
}

// next returns the data of the next event (its data lines joined with
// newlines; empty for an event without data), or io.EOF at the end of
// the stream.
func (e *eventReader) next() ([]byte, error) {
	var data []byte
	seen := false
	size := int64(0) // the event's bytes, every field and comment counted
	for {
		line, err := e.line()
		if err == nil {
			if size += int64(len(line)) + 1; size > e.max+2 {
				return nil, errTooLarge
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) && seen {
				return data, nil
			}
			return nil, err
		}
		if len(line) == 0 {
			if seen {
				return data, nil
			}
			continue
		}
		seen = true
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		if string(field) != "data" {
			continue // id, event, retry and comments
		}
		if int64(len(data)+len(value)+1) > e.max {
			return nil, errTooLarge
		}
		if data != nil {
			data = append(data, '\n')
		}
		data = append(data, value...)
		if data == nil {
			data = []byte{}
		}
	}
}

// line reads one line without its end (LF, CRLF or CR-less), bounded.
func (e *eventReader) line() ([]byte, error) {
	var line []byte
	for {
		chunk, err := e.r.ReadSlice('\n')
		line = append(line, chunk...)
		if int64(len(line)) > e.max+2 {
			return nil, errTooLarge
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(line) > 0 {
				return bytes.TrimRight(line, "\r\n"), nil
			}
			return nil, err
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}
