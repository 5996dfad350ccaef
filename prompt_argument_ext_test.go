package ferry_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

type tripArgs struct {
	City   string  `json:"city" doc:"The city to visit."`
	Season string  `json:"season,omitempty" enum:"spring,summer,autumn,winter"`
	Pace   string  `json:"pace" default:"slow" title:"Pace"`
	Budget *string `json:"budget"`
}

func tripServer(t *testing.T) *ferry.Server {
	t.Helper()
	srv := ferry.NewServer("s", "1", nil)
	ferry.AddPrompt(srv, ferry.Prompt{Name: "trip", Description: "Plans a trip."},
		func(_ context.Context, a tripArgs) ([]ferry.PromptMessage, error) {
			budget := "none"
			if a.Budget != nil {
				budget = *a.Budget
			}
			return []ferry.PromptMessage{ferry.UserMessage(ferry.Text(a.City + "/" + a.Season + "/" + a.Pace + "/" + budget))}, nil
		})
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	return srv
}

func TestPromptArgumentsReportEveryProblem(t *testing.T) {
	srv := tripServer(t)
	got := serveLine(t, srv, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"trip","arguments":{"mood":"x","season":"monsoon","pace":7}}}`)
	want := `prompt \"trip\": 4 problems with the arguments: has no argument \"mood\"; its arguments are: city, season, pace, budget; ` +
		`argument \"pace\" must be a string, got 7; argument \"season\" must be one of spring, summer, autumn, winter, got \"monsoon\"; ` +
		`argument \"city\" is required`
	if !strings.Contains(got, want) || !strings.Contains(got, `"code":-32602`) {
		t.Errorf("got %s\nwant it to contain %s", got, want)
	}
}

func TestPromptArgumentsReadNullAsAbsentAndApplyDefaults(t *testing.T) {
	srv := tripServer(t)
	got := serveLine(t, srv, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"trip","arguments":{"city":"Oslo","season":null,"budget":null}}}`)
	if !strings.Contains(got, `"text":"Oslo//slow/none"`) {
		t.Errorf("got %s", got)
	}
	got = serveLine(t, srv, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"trip","arguments":{"city":null}}}`)
	if !strings.Contains(got, `argument \"city\" is required`) {
		t.Errorf("null for a required argument: %s", got)
	}
}

func TestPromptListsDefaultedArgumentsAsOptional(t *testing.T) {
	srv := tripServer(t)
	got := serveLine(t, srv, `{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`)
	want := `"arguments":[{"name":"city","description":"The city to visit.","required":true},` +
		`{"name":"season","description":"One of: spring, summer, autumn, winter."},{"name":"pace","title":"Pace","description":"Default: slow."},{"name":"budget"}]`
	if !strings.Contains(got, want) {
		t.Errorf("got %s\nwant it to contain %s", got, want)
	}
}

// Every field and tag that cannot be a prompt argument is reported, not
// only the first; fields are read as encoding/json reads them.
func TestPromptStructProblemsAreAllReported(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	ferry.AddPromptTemplate[struct {
		N     int    `json:"n"`
		Units string `json:"units" required:"yes"`
		Mode  string `json:"mode" enum:"a,,b"`
		Dash  string `json:"-,"` // named "-", as encoding/json names it
		Skip  string `json:"-"`
	}](srv, ferry.Prompt{Name: "p", Description: "x", Template: "{{-}}"})
	err := srv.Check()
	if err == nil {
		t.Fatal("Check found nothing")
	}
	for _, want := range []string{
		"argument n (struct", "must be a string",
		`argument units (struct`, `tag required "yes" is not true or false`,
		`tag enum "a,,b" has an empty value`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check() does not say %q:\n%v", want, err)
		}
	}
}

func TestPromptWithADashNamedArgument(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	ferry.AddPromptTemplate[struct {
		Dash string `json:"-,"`
	}](srv, ferry.Prompt{Name: "p", Description: "x", Template: "got {{-}}"})
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	got := serveLine(t, srv, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p","arguments":{"-":"it"}}}`)
	if !strings.Contains(got, `"text":"got it"`) {
		t.Errorf("got %s", got)
	}
}

func TestTemplateVariablesOfEveryIntegerWidth(t *testing.T) {
	type vars struct {
		Small int8   `json:"small"`
		Byte  uint8  `json:"byte"`
		Wide  uint16 `json:"wide"`
		Page  int    `json:"page" default:"1"`
	}
	srv := ferry.NewServer("s", "1", nil)
	ferry.AddResourceTemplate(srv, ferry.ResourceTemplate{URITemplate: "n://{small}/{byte}/{wide}{?page}", Name: "n"},
		func(_ context.Context, uri string, v vars) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: uri, Text: strings.Join([]string{strconv.Itoa(int(v.Small)), strconv.Itoa(int(v.Byte)), strconv.Itoa(int(v.Wide)), strconv.Itoa(v.Page)}, ",")}}, nil
		})
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ uri, want string }{
		{"n://-5/255/65535", `"text":"-5,255,65535,1"`},
		{"n://-5/255/65535?page=3", `"text":"-5,255,65535,3"`},
		{"n://-5/256/1", `"code":-32002`},
		{"n://200/1/1", `"code":-32002`},
	} {
		got := serveLine(t, srv, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"`+tt.uri+`"}}`)
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s: got %s, want %s", tt.uri, got, tt.want)
		}
	}
}

func TestTemplateStructProblemsAreAllReported(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	ferry.AddResourceTemplate(srv, ferry.ResourceTemplate{URITemplate: "x://{a}/{b}", Name: "x"},
		func(_ context.Context, uri string, v struct {
			A []string `json:"a"`
			B int      `json:"b" default:"many"`
		}) ([]ferry.ResourceContents, error) {
			return nil, nil
		})
	err := srv.Check()
	for _, want := range []string{"variable a (struct", "must be a string, an integer or a boolean", `variable b (struct`, `tag default "many"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check() does not say %q:\n%v", want, err)
		}
	}
}

// Prompt arguments and template variables are read by one reader, so a
// rule of one holds for the other: a default that the enum forbids is a
// start-up problem for both, not a value refused at every call.
func TestArgumentsAndVariablesRefuseADefaultOutsideTheirEnum(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	ferry.AddResourceTemplate(srv, ferry.ResourceTemplate{URITemplate: "u://{?units}", Name: "u"},
		func(_ context.Context, uri string, v struct {
			Units string `json:"units" enum:"metric,imperial" default:"kelvin"`
		}) ([]ferry.ResourceContents, error) {
			return nil, nil
		})
	ferry.AddPromptTemplate[struct {
		Units string `json:"units" enum:"metric,imperial" default:"kelvin"`
	}](srv, ferry.Prompt{Name: "p", Description: "x", Template: "{{units}}"})
	err := srv.Check()
	for _, want := range []string{
		`variable units (struct { Units string "json:\"units\" enum:\"metric,imperial\" default:\"kelvin\"" }.Units): tag default "kelvin" is not one of the enum's values (metric, imperial)`,
		`prompt "p": argument units (struct`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check() does not say %q:\n%v", want, err)
		}
	}
}

// The protocol's prompt arguments carry no default and no list of values,
// so prompts/list appends them to the description, where a client shows
// them; a hand-written argument's as a derived one's.
func TestPromptListPublishesValuesAndDefaultInTheDescription(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	arg := ferry.PromptArgument{Name: "span", Description: "How far back to look.", Values: []string{"1 day", "1 week"}, OnlyValues: true, Default: "1 week"}
	srv.AddPromptTemplate(ferry.Prompt{Name: "report", Description: "x", Template: "{{span}}",
		Arguments: []ferry.PromptArgument{arg, {Name: "tone", Values: []string{"dry"}}}})
	got := serveLine(t, srv, `{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`)
	want := `"arguments":[{"name":"span","description":"How far back to look. One of: 1 day, 1 week. Default: 1 week."},{"name":"tone"}]`
	if !strings.Contains(got, want) {
		t.Errorf("got %s\nwant it to contain %s", got, want)
	}
	if arg.Description != "How far back to look." {
		t.Errorf("the Go value's description changed: %q", arg.Description)
	}
}

// A typed prompt whose argument struct cannot serve still has its name and
// description checked: Check reports every problem at once.
func TestCheckReportsEveryProblemOfATypedPrompt(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	ferry.AddPromptTemplate[struct {
		N int `json:"n"`
	}](srv, ferry.Prompt{Name: "p", Template: "{{n}}"})
	err := srv.Check()
	for _, want := range []string{"has no description", "argument n "} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check() = %v; want it to name %s", err, want)
		}
	}
}
