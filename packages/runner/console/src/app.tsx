import { useEffect, useState } from "preact/hooks";
import { adminGet, onUnauthorized, storedToken } from "./admin-client.js";
import { TokenPrompt } from "./token-prompt.js";
import { href, useHashRoute } from "./use-hash-route.js";
import { ViewBoundary } from "./view-boundary.js";
import { CompareView } from "./views/compare-view.js";
import { DeadLettersView } from "./views/dead-letters-view.js";
import { FlightsView } from "./views/flights-view.js";
import { OverviewView } from "./views/overview-view.js";
import { ReferenceView } from "./views/reference-view.js";
import { ReliableView } from "./views/reliable-view.js";
import { RequestsView } from "./views/requests-view.js";
import { TasksView } from "./views/tasks-view.js";

const VIEWS = [
  { route: "overview", label: "Overview" },
  { route: "dead", label: "Dead letters" },
  { route: "flights", label: "Flights" },
  { route: "reference", label: "Reference data" },
  { route: "requests", label: "Requests" },
  { route: "reliable", label: "Reliable messages" },
  { route: "tasks", label: "Task events" },
  { route: "compare", label: "Compare" },
] as const;

/** The cheap route that tells whether the runner takes this tab's token (or none): a 401 comes before any work. */
const ACCESS_PROBE = "/admin/runners";

/**
 * The console: a nav of hash routes, the current view, and the token prompt when the runner asks
 * for one. Before any view loads, one probe asks whether the runner takes this tab's token (or
 * none): when it does not, the prompt comes first, not after the views' requests have failed.
 */
export function App() {
  const [view = "overview", ...rest] = useHashRoute();
  const [prompt, setPrompt] = useState<"closed" | "asked" | "refused">("closed");
  const [access, setAccess] = useState<"checking" | "locked" | "open">("checking");
  // A new token remounts the view, which fetches again with it; so does another view (a fresh boundary).
  const [generation, setGeneration] = useState(0);
  const probe = () => {
    setAccess("checking");
    void adminGet(ACCESS_PROBE).then((a) => {
      if (!a.ok && a.status === 401) {
        setAccess("locked");
        setPrompt(storedToken() === null ? "asked" : "refused");
      } else setAccess("open");
    });
  };
  useEffect(probe, []);
  useEffect(() => onUnauthorized(() => setPrompt("refused")), []);
  useEffect(() => {
    const label = VIEWS.find((v) => v.route === view)?.label ?? "Not found";
    document.title = `${label} · msgx console`;
  }, [view]);

  return (
    <>
      <header class="top">
        <a class="brand" href={href("overview")}>
          msgx console
        </a>
        <nav aria-label="Views">
          <ul>
            {VIEWS.map((v) => (
              <li key={v.route}>
                <a href={href(v.route)} data-testid={`nav-${v.route}`} aria-current={v.route === view ? "page" : undefined}>
                  {v.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="token-button" onClick={() => setPrompt("asked")}>
          Token
        </button>
      </header>
      <main key={`${generation}:${view}`}>
        {access === "open" ? (
          <ViewBoundary>{viewOf(view, rest)}</ViewBoundary>
        ) : access === "checking" ? (
          <p class="placeholder" data-testid="access-checking">
            Connecting to the runner…
          </p>
        ) : (
          <p class="notice" data-testid="access-locked">
            This runner requires its admin token (<code>http.token</code>).{" "}
            <button type="button" onClick={() => setPrompt("asked")}>
              Enter the token
            </button>
          </p>
        )}
      </main>
      {prompt !== "closed" && (
        <TokenPrompt
          refused={prompt === "refused"}
          onDone={() => {
            setPrompt("closed");
            setGeneration((g) => g + 1);
            probe();
          }}
          onCancel={() => setPrompt("closed")}
        />
      )}
    </>
  );
}

function viewOf(view: string, rest: readonly string[]) {
  switch (view) {
    case "overview":
      return <OverviewView />;
    case "dead":
      return <DeadLettersView route={rest} />;
    case "flights":
      return <FlightsView flid={rest[0]} />;
    case "reference":
      return <ReferenceView rtype={rest[0]} rkey={rest[1]} />;
    case "requests":
      return <RequestsView />;
    case "reliable":
      return <ReliableView />;
    case "tasks":
      return <TasksView />;
    case "compare":
      return <CompareView />;
    default:
      return (
        <p class="notice">
          No view <code>{view}</code>: pick one above.
        </p>
      );
  }
}
