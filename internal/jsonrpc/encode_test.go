package jsonrpc

import (
	"testing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Kind
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, KindRequest},
		{"string id", `{"jsonrpc":"2.0","id":"a","method":"ping"}`, KindRequest},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, KindNotification},
		{"response", `{"jsonrpc":"2.0","id":1,"result":{}}`, KindResponse},
		{"error response", `{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}`, KindResponse},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, KindInvalid},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, KindInvalid},
		{"wrong version", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, KindInvalid},
		{"array params", `{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}`, KindInvalid},
		{"nothing", `{"jsonrpc":"2.0","id":1}`, KindInvalid},
		{"both", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":""}}`, KindInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got, err := Decode([]byte(tt.in))
			if got != tt.want {
				t.Errorf("kind = %v (%v), want %v", got, err, tt.want)
			}
			if (err != nil) != (tt.want == KindInvalid) {
				t.Errorf("err = %v for kind %v", err, tt.want)
			}
		})
	}
}
