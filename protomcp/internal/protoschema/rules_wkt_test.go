package protoschema

import (
	"testing"
	"time"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Every bound of a Duration or a Timestamp rule is said in its own words
// (gt and gte are one oneof, and lt and lte another: two rules say all).
func TestOrderNotesSayEveryBound(t *testing.T) {
	d := durationpb.New
	dr1, dr2 := &validate.DurationRules{}, &validate.DurationRules{}
	dr1.SetConst(d(time.Second))
	dr1.SetGt(d(2 * time.Second))
	dr1.SetLt(d(4 * time.Second))
	dr1.SetIn([]*durationpb.Duration{d(time.Second)})
	dr2.SetGte(d(3 * time.Second))
	dr2.SetLte(d(5 * time.Second))
	dr2.SetNotIn([]*durationpb.Duration{d(time.Minute)})
	got := append(durationNotes(dr1), durationNotes(dr2)...)
	want := []string{`Must be exactly "1s".`, `Must be longer than "2s".`, `Must be shorter than "4s".`, `Must be one of "1s".`,
		`Must be at least "3s".`, `Must be at most "5s".`, `Must not be "60s".`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("duration notes (-want +got):\n%s", diff)
	}
	ts := func(day int) *timestamppb.Timestamp {
		return timestamppb.New(time.Date(2026, 7, day, 0, 0, 0, 0, time.UTC))
	}
	tr1, tr2 := &validate.TimestampRules{}, &validate.TimestampRules{}
	tr1.SetConst(ts(9))
	tr1.SetGt(ts(1))
	tr1.SetLt(ts(3))
	tr1.SetWithin(d(time.Hour))
	tr2.SetGte(ts(2))
	tr2.SetLte(ts(4))
	got = append(timestampNotes(tr1), timestampNotes(tr2)...)
	want = []string{"Must be exactly 2026-07-09T00:00:00Z.", "Must be after 2026-07-01T00:00:00Z.", "Must be before 2026-07-03T00:00:00Z.",
		`Must be within "3600s" of now.`, "Must be at or after 2026-07-02T00:00:00Z.", "Must be at or before 2026-07-04T00:00:00Z."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("timestamp notes (-want +got):\n%s", diff)
	}
}
