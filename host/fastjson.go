package host

import (
	"bytes"
	"encoding/json"

	"github.com/wasmagent/wasmagent/host/internal/jsonread"
)

// Bits of the members a message or block was given (fastScanner.seen).
const (
	mRole = 1 << iota
	mContent
	mTimestamp
	mAPI
	mProvider
	mModel
	mResponseModel
	mResponseID
	mUsage
	mStopReason
	mErrorMessage
	mToolCallID
	mToolName
	mDetails
	mIsError
)

// decodeMessageFast decodes a user, assistant or tool-result message
// given in exactly the members its Go fields write (so that it needs no
// source kept): ok is false for anything else, which encoding/json then
// decodes (DecodeMessage).
func decodeMessageFast(data []byte) (Message, bool) {
	s := jsonread.New(data)
	var (
		seen                                          int
		role, api, provider, model, respModel, respID string
		stop, errMsg, callID, toolName                string
		content                                       Contents
		usage                                         Usage
		timestamp                                     int64
		details                                       []byte
		isError                                       bool
	)
	last, inOrder := -1, true
	s.Members(func(name []byte) {
		// in the order the Go fields write them, or the message keeps
		// its own (decodeKeeping)
		r := messageRank(string(name))
		inOrder, last = inOrder && r > last, r
		switch string(name) {
		case "role":
			seen, role = seen|mRole, s.Str()
		case "content":
			seen, content = seen|mContent, contentsFast(s)
		case "timestamp":
			seen, timestamp = seen|mTimestamp, s.Integer()
		case "api":
			seen, api = seen|mAPI, s.Str()
		case "provider":
			seen, provider = seen|mProvider, s.Str()
		case "model":
			seen, model = seen|mModel, s.Str()
		case "responseModel":
			seen, respModel = seen|mResponseModel, s.Str()
		case "responseId":
			seen, respID = seen|mResponseID, s.Str()
		case "usage":
			seen, usage = seen|mUsage, usageFast(s)
		case "stopReason":
			seen, stop = seen|mStopReason, s.Str()
		case "errorMessage":
			seen, errMsg = seen|mErrorMessage, s.Str()
		case "toolCallId":
			seen, callID = seen|mToolCallID, s.Str()
		case "toolName":
			seen, toolName = seen|mToolName, s.Str()
		case "details":
			seen, details = seen|mDetails, s.Skip()
		case "isError":
			seen, isError = seen|mIsError, s.Bool()
		default:
			s.Fail()
		}
	})
	if !s.End() || !inOrder || s.LoneSurrogate() {
		return nil, false
	}
	switch role {
	case RoleUser:
		return &UserMessage{Content: content, Timestamp: timestamp}, seen == mRole|mContent|mTimestamp
	case RoleAssistant:
		want := mRole | mContent | mAPI | mProvider | mModel | mUsage | mStopReason | mTimestamp
		want |= opt(respModel, mResponseModel) | opt(respID, mResponseID) | opt(errMsg, mErrorMessage)
		return &AssistantMessage{Content: content, API: api, Provider: provider, Model: model, ResponseModel: respModel, ResponseID: respID,
			Usage: usage, StopReason: StopReason(stop), ErrorMessage: errMsg, Timestamp: timestamp}, seen == want
	case RoleToolResult:
		m := &ToolResultMessage{ToolCallID: callID, ToolName: toolName, Content: content, IsError: isError, Timestamp: timestamp}
		want := mRole | mToolCallID | mToolName | mContent | mIsError | mTimestamp
		if seen&mDetails != 0 {
			if string(details) == "null" {
				return nil, false // omitted when nil: the given null needs keeping
			}
			if json.Unmarshal(details, &m.Details) != nil || !writesBack(details, m.Details) {
				return nil, false
			}
			want |= mDetails
		}
		return m, seen == want
	}
	return nil, false
}

// messageRank is where the Go fields of the messages write a member:
// each role's members in ascending rank (an assistant message's in
// OrderLate; one in OrderMade is left to decodeKeeping).
func messageRank(name string) int {
	switch name {
	case "role":
		return 0
	case "toolCallId":
		return 1
	case "toolName":
		return 2
	case "content":
		return 3
	case "api":
		return 4
	case "provider":
		return 5
	case "model":
		return 6
	case "usage":
		return 7
	case "stopReason":
		return 8
	case "details":
		return 9
	case "isError":
		return 10
	case "timestamp":
		return 11
	case "responseId":
		return 12
	case "responseModel":
		return 13
	case "errorMessage":
		return 14
	}
	return 15
}

// writesBack reports whether v, decoded from raw, encodes to what
// JSON.stringify writes of raw (a map's keys come sorted; JavaScript
// keeps them in the order given).
func writesBack(raw []byte, v any) bool {
	js, err := JSONStringify(raw)
	if err != nil {
		return false
	}
	enc, err := MarshalJS(v)
	return err == nil && bytes.Equal(js, enc)
}

// opt is bit when s is not empty (an omitempty member).
func opt(s string, bit int) int {
	if s == "" {
		return 0
	}
	return bit
}

// Bits of a content block's members.
const (
	bType = 1 << iota
	bText
	bTextSignature
	bThinking
	bThinkingSignature
	bRedacted
	bData
	bMimeType
	bID
	bName
	bArguments
	bThoughtSignature
)

// contents reads an array of blocks, each in exactly the members its
// type writes.
func contentsFast(s *jsonread.Scanner) Contents {
	if s.Peek() != '[' {
		s.Fail()
		return nil
	}
	cs := make(Contents, 0, 2)
	s.Elements(func() {
		var (
			seen                                    int
			typ, text, sig, data, mime, id, name, t string
			redacted                                bool
			args                                    []byte
		)
		s.Members(func(member []byte) {
			defer inOrder(s, seen, &seen)
			switch string(member) {
			case "type":
				seen, typ = seen|bType, s.Str()
			case "text":
				seen, text = seen|bText, s.Str()
			case "textSignature":
				seen, sig = seen|bTextSignature, s.Str()
			case "thinking":
				seen, text = seen|bThinking, s.Str()
			case "thinkingSignature":
				seen, sig = seen|bThinkingSignature, s.Str()
			case "redacted":
				seen, redacted = seen|bRedacted, s.Bool()
			case "data":
				seen, data = seen|bData, s.Str()
			case "mimeType":
				seen, mime = seen|bMimeType, s.Str()
			case "id":
				seen, id = seen|bID, s.Str()
			case "name":
				seen, name = seen|bName, s.Str()
			case "arguments":
				seen, args = seen|bArguments, s.Skip()
			case "thoughtSignature":
				seen, t = seen|bThoughtSignature, s.Str()
			default:
				s.Fail()
			}
		})
		var c Content
		want := bType
		switch typ {
		case "text":
			c, want = TextContent{Text: text, TextSignature: sig}, want|bText|opt(sig, bTextSignature)
		case "thinking":
			c, want = ThinkingContent{Thinking: text, ThinkingSignature: sig, Redacted: redacted}, want|bThinking|opt(sig, bThinkingSignature)
			if redacted {
				want |= bRedacted
			}
		case "image":
			c, want = ImageContent{Data: data, MimeType: mime}, want|bData|bMimeType
		case "toolCall":
			c, want = ToolCall{ID: id, Name: name, Arguments: append(json.RawMessage(nil), args...), ThoughtSignature: t}, want|bID|bName|bArguments|opt(t, bThoughtSignature)
		}
		if c == nil || seen != want {
			s.Fail()
			return
		}
		cs = append(cs, c)
	})
	return cs
}

// inOrder fails s unless the member just read (the bit seen gained over
// before) comes after the others: members are read fast in the order
// the Go fields write them (their bits ascending), once each.
func inOrder(s *jsonread.Scanner, before int, seen *int) {
	if bit := *seen &^ before; bit <= before {
		s.Fail()
	}
}

// usage reads pi-ai's usage, every member given and no other.
func usageFast(s *jsonread.Scanner) Usage {
	var u Usage
	seen := 0
	s.Members(func(name []byte) {
		defer inOrder(s, seen, &seen)
		switch string(name) {
		case "input":
			seen, u.Input = seen|1, int(s.Integer())
		case "output":
			seen, u.Output = seen|2, int(s.Integer())
		case "cacheRead":
			seen, u.CacheRead = seen|4, int(s.Integer())
		case "cacheWrite":
			seen, u.CacheWrite = seen|8, int(s.Integer())
		case "totalTokens":
			seen, u.TotalTokens = seen|16, int(s.Integer())
		case "cost":
			seen |= 32
			costs := 0
			s.Members(func(name []byte) {
				defer inOrder(s, costs, &costs)
				switch string(name) {
				case "input":
					costs, u.Cost.Input = costs|1, s.Float()
				case "output":
					costs, u.Cost.Output = costs|2, s.Float()
				case "cacheRead":
					costs, u.Cost.CacheRead = costs|4, s.Float()
				case "cacheWrite":
					costs, u.Cost.CacheWrite = costs|8, s.Float()
				case "total":
					costs, u.Cost.Total = costs|16, s.Float()
				default:
					s.Fail()
				}
			})
			if costs != 31 {
				s.Fail()
			}
		default:
			s.Fail()
		}
	})
	if seen != 63 {
		s.Fail()
	}
	return u
}
