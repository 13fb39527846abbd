"""A client of the gateway with only Python's standard library (issue 21): the non-TypeScript path.

Usage: python3 python_client.py BASE_URL TURNS
Sends TURNS user turns of one conversation, resending the whole history each time as OpenAI
clients do, then one streamed turn. Prints one JSON line with what it saw.
"""
import json
import sys
import urllib.request

base_url, turns = sys.argv[1], int(sys.argv[2])


def post(path, body):
    request = urllib.request.Request(
        base_url + path,
        data=json.dumps(body).encode("utf-8"),
        headers={"Content-Type": "application/json", "Authorization": "Bearer python-client-key"},
        method="POST",
    )
    return urllib.request.urlopen(request, timeout=30)


messages = [{"role": "system", "content": "You answer in one line."}]
sessions, compacted, replies = set(), 0, []
for turn in range(1, turns + 1):
    messages.append({"role": "user", "content": "Python turn %d: %s" % (turn, "tell me more about the harbour " * 8)})
    with post("/chat/completions", {"model": "test-model", "messages": messages}) as response:
        body = json.loads(response.read().decode("utf-8"))
        sessions.add(response.headers["x-chatfold-session"])
        compacted += response.headers["x-chatfold-compacted"] == "true"
    reply = body["choices"][0]["message"]
    replies.append(reply["content"])
    messages.append({"role": "assistant", "content": reply["content"]})

messages.append({"role": "user", "content": "One streamed answer please"})
streamed = ""
with post("/chat/completions", {"model": "test-model", "messages": messages, "stream": True,
                                "stream_options": {"include_usage": True}}) as response:
    for raw in response:
        line = raw.decode("utf-8").strip()
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        chunk = json.loads(line[len("data: "):])
        for choice in chunk["choices"]:
            streamed += choice["delta"].get("content") or ""

print(json.dumps({"sessions": sorted(sessions), "compacted": compacted, "replies": replies, "streamed": streamed}))
