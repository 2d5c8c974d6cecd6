"""Chat completions against an OpenAI-compatible server: generation from a served model.

In:  :class:`ChatRequest` objects (messages + :class:`SamplingSpec`) of one model, and the model's
     ``models.<name>.server`` settings: ``base_url`` (e.g. ``http://127.0.0.1:8000/v1``),
     ``served_model_name`` (default: the model's ``hub_id``, what ``vllm serve <hub_id>`` serves),
     ``api_key_env`` (the *name* of the environment variable holding the key; the key itself is
     never in config, logs or provenance), ``concurrency``, ``timeout_s``, ``max_retries``,
     ``retry_max_s``, ``extra_sampling``.
Out: one :class:`Generation` per request, in request order, with the token counts the server
     reports (``usage``) and what it says it is (``served``: the answering model's name and
     ``system_fingerprint``).

The server (``vllm serve``, SGLang, TGI, a hosted endpoint) renders the messages with its own chat
template, so nothing is rendered or tokenised here; ``models.<name>.chat_template_kwargs`` go with
every request as ``chat_template_kwargs`` (vLLM and SGLang take them), so Qwen3's
``enable_thinking: false`` reaches the template. The response cache keys answers as for every
backend: the model identity the config declares (Hub id + ``revision``, or a local directory's
weights hash, dtype, chat-template kwargs), backend ``openai``, the messages and the sampling.

Sampling as the paper asks, every field sent explicitly so that the server's own defaults (vLLM
applies the model's ``generation_config.json`` to fields a request leaves out) never decide it:
greedy requests send ``temperature: 0``; sampled ones ``temperature``, ``top_p`` and the request's
own ``seed``. ``top_k`` (0 = off) and ``repetition_penalty``, which the OpenAI API lacks, go as the
server's extra parameters (``extra_sampling: true``, the default; vLLM, SGLang and TGI's OpenAI
route take them) together with ``min_p: 0`` (the offline engines' value). With ``extra_sampling:
false`` (a server that refuses them) a request that needs a non-neutral value of either fails
before it is sent, naming the key; a server that answers a parameter with HTTP 400 fails the job
with its message and the config key the parameter comes from. Nothing is dropped silently.

Faults: each request is retried on HTTP 429 and 5xx, connection errors, timeouts and an answer
the server aborted, with exponential backoff (1 s, 2 s, 4 s ... at most 60 s; a ``Retry-After``
header is honoured), at most ``max_retries`` times and ``retry_max_s`` seconds; then the call
fails with :class:`RequestFailed` naming the request (the cache adds its id). Other 4xx answers
are not retried. Before the first request ``GET /models`` must list ``served_model_name`` (a server
that does not answer yet is waited for, up to ``retry_max_s``: it may still be starting), and
every answer must name it: a server answering with another model is refused
(:class:`ServedModelMismatch`). Up to ``concurrency`` requests are in flight at once (the server
batches them); each answer is handed to the caller (``on_result``) as it completes, so the cache
writes it before the call goes on and a resumed job sends only what is missing.
"""
from __future__ import annotations

import http.client
import json
import logging
import os
import platform
import threading
import time
from concurrent.futures import CancelledError, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence
from urllib.parse import urlsplit, urlunsplit

from ...errors import ExpectedError
from .base import Backend, ChatRequest, Generation, ModelSpec, RequestFailed, SamplingSpec, library_versions

log = logging.getLogger(__name__)

BACKOFF_FIRST_S = 1.0
BACKOFF_MAX_S = 60.0
RETRY_STATUS = frozenset({408, 429}) | frozenset(range(500, 600))
# No answer at all: refused, reset or timed-out connections (OSError) and broken HTTP (HTTPException).
TRANSPORT_ERRORS = (OSError, http.client.HTTPException)


@dataclass
class Response:
    status: int
    headers: Mapping[str, str]
    text: str

    def json(self) -> Any:
        return json.loads(self.text)


class Connections:
    """HTTP/1.1 to one server, one persistent connection per thread (the standard library's
    ``http.client``: per request a fraction of the CPU a general-purpose client takes, which on a
    machine shared with the server is time taken from the server; benchmarks/served_generation.py).
    A kept-alive connection the server closed meanwhile is reopened and the request sent again
    once, uncounted (nothing was answered on it)."""

    def __init__(self, base_url: str, timeout_s: float, headers: Mapping[str, str]):
        parts = urlsplit(base_url)
        self.cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        self.host, self.port, self.path = parts.hostname, parts.port, parts.path.rstrip("/")
        self.timeout_s = timeout_s
        self.headers = {"Content-Type": "application/json", "Accept": "application/json", **headers}
        self.local = threading.local()
        self.opened: set[http.client.HTTPConnection] = set()  # to close them all at the end

    def request(self, method: str, path: str, body: Any = None) -> Response:
        data = None if body is None else json.dumps(body).encode("utf-8")
        for fresh in (False, True):
            conn = getattr(self.local, "conn", None) if not fresh else None
            reused = conn is not None
            if conn is None:
                conn = self.local.conn = self.cls(self.host, self.port, timeout=self.timeout_s)
                self.opened.add(conn)
            try:
                conn.request(method, self.path + path, body=data, headers=self.headers)
                answer = conn.getresponse()
                text = answer.read().decode("utf-8", "replace")
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self._drop(conn)
                if reused:
                    continue
                raise
            except BaseException:
                self._drop(conn)
                raise
            if answer.will_close:
                self._drop(conn)
            return Response(answer.status, dict(answer.headers), text)
        raise AssertionError("unreachable")

    def _drop(self, conn: http.client.HTTPConnection) -> None:
        conn.close()
        self.opened.discard(conn)
        self.local.conn = None

    def close(self) -> None:
        for conn in list(self.opened):
            conn.close()
        self.opened.clear()


class ServerError(ExpectedError):
    """The server cannot serve this model as configured (unreachable, wrong model, refused key)."""


class ServedModelMismatch(ServerError):
    """The server serves, or answered with, another model than ``served_model_name``."""


def sampling_body(spec: SamplingSpec, extra_sampling: bool) -> dict[str, Any]:
    """The sampling fields of one chat-completions request (module docstring). Refuses a
    non-neutral top-k or repetition penalty when the server's extra parameters are off."""
    body: dict[str, Any] = {"max_tokens": int(spec.max_new_tokens)}
    if spec.greedy:
        body["temperature"] = 0.0
    else:
        body.update(temperature=float(spec.temperature), top_p=float(spec.top_p), seed=int(spec.seed))
    if extra_sampling:
        body["repetition_penalty"] = float(spec.repetition_penalty)
        body["min_p"] = 0.0
        if not spec.greedy:
            body["top_k"] = int(spec.top_k)
        return body
    needed = {name: value for name, value, neutral in (("top_k", 0 if spec.greedy else spec.top_k, 0),
                                                       ("repetition_penalty", spec.repetition_penalty, 1.0))
              if value != neutral}
    if needed:
        raise ValueError(f"{', '.join(f'{k}={v}' for k, v in needed.items())} needs the server's extra sampling "
                         f"parameters, which server.extra_sampling: false turns off")
    return body


# Where a request's parameter comes from in config, for the message when a server refuses it.
PARAMETER_KEYS = {
    "top_k": "generation.sampling.top_k",
    "top_p": "generation.sampling.top_p",
    "temperature": "generation.sampling.temperature",
    "repetition_penalty": "generation.sampling.repetition_penalty",
    "min_p": "models.{model}.server.extra_sampling",
    "seed": "generation.seeds (per-request seeds)",
    "max_tokens": "the stage's max_new_tokens (generation.max_new_tokens, wikicontradict.max_new_tokens, ...)",
    "chat_template_kwargs": "models.{model}.chat_template_kwargs",
}


def refusal_message(model: str, status: int, text: str, body: Mapping[str, Any]) -> str:
    """A server's 4xx answer as a message naming the config keys of the parameters it mentions."""
    keys = [f"{p} ({PARAMETER_KEYS[p].format(model=model)})" for p in PARAMETER_KEYS if p in body and p in text]
    where = f"; it names {', '.join(keys)}" if keys else ""
    extra = ("; a server without vLLM's extra parameters needs models.{m}.server.extra_sampling: false and a "
             "neutral generation.sampling.top_k / repetition_penalty").format(m=model) \
        if any(p in text for p in ("top_k", "repetition_penalty", "min_p")) else ""
    return f"the server refused it: HTTP {status}: {text.strip()[:500]}{where}{extra}"


class OpenAIBackend(Backend):
    name = "openai"

    def __init__(
        self,
        spec: ModelSpec,
        *,
        base_url: str,
        concurrency: int,
        timeout_s: float,
        max_retries: int,
        retry_max_s: float,
        extra_sampling: bool,
        served_model_name: str | None = None,
        api_key_env: str | None = None,
        **_ignored: Any,
    ):
        """Options as in config ``models.<name>.server`` over ``generation.server`` (whose values are
        the defaults: config/defaults.yaml); ``batch_size`` and other backends' options are ignored."""
        super().__init__(spec)
        self.base_url = base_url.rstrip("/")
        self.shown_url = public_url(self.base_url)  # in messages and provenance: no credentials
        self.served_model_name = served_model_name or spec.path
        self.concurrency = max(1, int(concurrency))
        self.timeout_s = float(timeout_s)
        self.max_retries = max(0, int(max_retries))
        self.retry_max_s = float(retry_max_s)
        self.extra_sampling = bool(extra_sampling)
        headers = {}
        if api_key_env:
            key = os.environ.get(api_key_env)
            if not key:
                raise ServerError(f"models.{spec.name}.server.api_key_env: the environment variable {api_key_env} "
                                  f"is not set in this job's environment")
            headers["Authorization"] = f"Bearer {key}"
        self.http = Connections(self.base_url, self.timeout_s, headers)
        self._stop = threading.Event()
        self.server_model = self._served_model_entry()
        log.info("server %s serves %s (root %s, max_model_len %s)", self.shown_url, self.served_model_name,
                 self.server_model.get("root"), self.server_model.get("max_model_len"))

    # --- what the server is ------------------------------------------------------------

    def _served_model_entry(self) -> dict:
        """The ``GET /models`` entry of ``served_model_name`` (retried like a request while the
        server starts); refuses a server that does not serve it."""
        try:  # a server still starting (or queued on SLURM) is waited for, up to retry_max_s
            response = self._with_retries("GET /models", lambda: self.http.request("GET", "/models"), counted=False)
        except RuntimeError as err:
            raise ServerError(f"models.{self.spec.name}.server.base_url: no server answers: {err}") from None
        if response.status != 200:
            raise ServerError(f"models.{self.spec.name}.server: GET {self.shown_url}/models answered HTTP "
                              f"{response.status}: {response.text[:300]}"
                              + (" (check server.api_key_env)" if response.status in (401, 403) else ""))
        entries = {m.get("id"): m for m in (response.json().get("data") or [])}
        if self.served_model_name not in entries:
            raise ServedModelMismatch(
                f"models.{self.spec.name}.server.served_model_name: the server at {self.shown_url} serves "
                f"{sorted(entries)}, not {self.served_model_name!r}; start it with --served-model-name "
                f"{self.served_model_name} or name what it serves")
        return entries[self.served_model_name]

    def chat_template_hash(self) -> str:
        return ""  # the server renders with its own template; the model identity names it

    def settings(self) -> dict[str, Any]:
        return {"extra_sampling": self.extra_sampling}

    def provenance(self) -> dict[str, Any]:
        return {
            "library_versions": f"python={platform.python_version()}",  # the client is the standard library's
            "device": f"server {self.shown_url}",
            "prefix_caching": False,  # the server's own setting; not visible to a client
            "server_url": self.shown_url,
            "server_model_root": str(self.server_model.get("root") or ""),
            "server_max_model_len": self.server_model.get("max_model_len"),
        }

    # --- requests ----------------------------------------------------------------------

    def request_body(self, request: ChatRequest) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.served_model_name, "messages": request.message_dicts(), "n": 1}
        try:
            body.update(sampling_body(request.sampling, self.extra_sampling))
        except ValueError as err:
            raise ServerError(f"models.{self.spec.name}.server.extra_sampling: {err}; set it to true (the server "
                              f"must take top_k / repetition_penalty) or use neutral values") from None
        if self.spec.chat_template_kwargs:
            body["chat_template_kwargs"] = dict(self.spec.chat_template_kwargs)
        return body

    def _with_retries(self, what: str, send: Callable[[], Response], counted: bool = True) -> Response:
        """``send()`` until it answers with anything but a retryable status (module docstring);
        raises ``RuntimeError`` naming the last failure once the retries are spent (``counted``
        False: bounded by ``retry_max_s`` only)."""
        start = time.monotonic()
        attempts = self.max_retries + 1 if counted else 1 << 30
        for attempt in range(attempts):
            wait = None
            try:
                response = send()
            except TRANSPORT_ERRORS as exc:
                reason = f"{type(exc).__name__}: {exc or 'no answer'}"
            else:
                if response.status not in RETRY_STATUS:
                    return response
                reason = f"HTTP {response.status}: {response.text.strip()[:300]}"
                wait = _retry_after(response)
            elapsed = time.monotonic() - start
            if wait is None:
                wait = min(BACKOFF_MAX_S, BACKOFF_FIRST_S * 2 ** attempt)
            if attempt == attempts - 1 or elapsed + wait > self.retry_max_s or self._stop.is_set():
                raise RuntimeError(f"{what} to {self.shown_url} failed {attempt + 1} times in {elapsed:.0f} s "
                                   f"(models.{self.spec.name}.server.max_retries / retry_max_s); last: {reason}")
            log.warning("%s: %s; retry %d in %.1f s", what, reason, attempt + 1, wait)
            if self._stop.wait(wait):
                raise RuntimeError(f"{what}: stopped after {reason} (another request of the call failed)")
        raise AssertionError("unreachable")

    def complete(self, request: ChatRequest) -> Generation:
        """One request, with retries (module docstring)."""
        body = self.request_body(request)
        for attempt in range(self.max_retries + 1):
            response = self._with_retries("POST /chat/completions",
                                          lambda: self.http.request("POST", "/chat/completions", body))
            if response.status != 200:
                raise ServerError(refusal_message(self.spec.name, response.status, response.text, body))
            answer = response.json()
            generation = self.generation(answer)
            if generation is not None:
                return generation
            log.warning("the server aborted a request (finish_reason %r); sending it again",
                        answer["choices"][0].get("finish_reason"))
        raise RuntimeError(f"the server aborted the request {self.max_retries + 1} times")

    def generation(self, answer: Mapping[str, Any]) -> Generation | None:
        """A chat-completions answer as a :class:`Generation`; None when the server aborted it."""
        served = answer.get("model")
        if served != self.served_model_name:
            raise ServedModelMismatch(
                f"models.{self.spec.name}.server.served_model_name: the server at {self.shown_url} answered with "
                f"model {served!r}, not {self.served_model_name!r}; refusing its answers")
        choice = answer["choices"][0]
        finish = choice.get("finish_reason")
        if finish not in ("stop", "length"):
            return None
        usage = answer.get("usage") or {}
        if "prompt_tokens" not in usage or "completion_tokens" not in usage:
            raise ServerError(f"the server at {self.shown_url} reports no token usage (usage.prompt_tokens, "
                              f"usage.completion_tokens), which every response records")
        return Generation(text=choice["message"].get("content") or "", n_prompt_tokens=int(usage["prompt_tokens"]),
                          n_output_tokens=int(usage["completion_tokens"]), finish_reason=finish,
                          served={"served_model": str(served), "system_fingerprint": str(answer.get("system_fingerprint") or "")})

    def generate_chat(self, requests: Sequence[ChatRequest],
                      on_result: Callable[[int, Generation], None] | None = None) -> list[Generation]:
        """Up to ``concurrency`` requests in flight; ``on_result(i, gen)`` as each completes (in this
        thread). The first request that fails stops the rest: those in flight finish (and are
        handed over), those not yet sent are not sent, and :class:`RequestFailed` names it."""
        results: list[Generation | None] = [None] * len(requests)
        failed: tuple[int, BaseException] | None = None
        self._stop.clear()
        with ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="openai") as pool:
            futures = {pool.submit(self.complete, r): i for i, r in enumerate(requests)}
            try:
                for future in as_completed(futures):
                    i = futures[future]
                    try:
                        results[i] = future.result()
                    except CancelledError:
                        continue
                    except Exception as exc:  # noqa: BLE001 - the first failure is re-raised below, naming it
                        if failed is None:
                            failed = (i, exc)
                            self._stop_sending(futures)
                        continue
                    if on_result is not None:
                        on_result(i, results[i])
            except BaseException:  # e.g. the cache cannot write: send nothing more, then re-raise
                self._stop_sending(futures)
                raise
        if failed is not None:
            i, exc = failed
            raise RequestFailed(i, str(exc)) from exc
        return results  # type: ignore[return-value]

    def _stop_sending(self, futures) -> None:
        """Send no request not yet sent; requests backing off give up."""
        self._stop.set()
        for future in futures:
            future.cancel()

    def close(self) -> None:
        self.http.close()


def public_url(url: str) -> str:
    """``url`` without user:password (what provenance records)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=parts.hostname + (f":{parts.port}" if parts.port else ""))) \
        if parts.username or parts.password else url


def _retry_after(response: Response) -> float | None:
    """Seconds a ``Retry-After`` header asks for (None when absent or a date)."""
    found = {k.lower(): v for k, v in response.headers.items()}.get("retry-after")
    try:
        return max(0.0, float(found)) if found is not None else None
    except ValueError:
        return None
