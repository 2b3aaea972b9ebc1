package cdp

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// MaxMessage bounds one message from the browser (a screenshot of a large
// page is a few MB of base64).
const MaxMessage = 64 << 20

// readFrames calls fn with each NUL-ended message read from r, until r
// ends or a message is longer than max. A last message not ended by NUL
// is not delivered.
func readFrames(r io.Reader, max int, fn func([]byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var msg []byte
	for {
		chunk, err := br.ReadSlice(0)
		if len(msg)+len(chunk) > max+1 {
			return fmt.Errorf("cdp: a message from the browser is longer than %d bytes", max)
		}
		msg = append(msg, chunk...)
		switch err {
		case nil:
			fn(bytes.Clone(msg[:len(msg)-1]))
			msg = msg[:0]
		case bufio.ErrBufferFull:
		case io.EOF:
			return nil
		default:
			return err
		}
	}
}
