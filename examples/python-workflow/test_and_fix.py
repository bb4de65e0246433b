"""A workflow written in Python: ask for a kernel, test it, show the model the result, repeat; submit
the first version that passes (or the last one written).

    workflows: [{name: py-test-and-fix, plugin: tritongym.workflow.python,
                 config: {module: examples/python-workflow/test_and_fix.py, options: {rounds: 4}}}]

`episode` offers: task (a dict: id, dsl, entry_function, description, prompt), tools() (name,
description, parameters), chat(messages, offer_tools=True, tool_choice="auto", temperature=None,
max_output_tokens=None) -> {content, tool_calls, finish_reason, usage}, call_tool(name, arguments) ->
{ok, text}, budget_exhausted(), log(text) and extract_python_code(text). chat and call_tool raise
tritongym_workflow.BudgetExhausted when the budget is spent.
"""
from tritongym_workflow import BudgetExhausted

SYSTEM = ("You are an expert GPU kernel engineer. Answer with the complete file in one ```python block. "
          "When shown a test result, fix the kernel.")


def run(episode, options):
    tool_names = {tool["name"] for tool in episode.tools()}
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": episode.task["prompt"]}]
    code, passed = "", False
    try:
        for round_number in range(int(options.get("rounds", 4))):
            if episode.budget_exhausted():
                break
            reply = episode.chat(messages, offer_tools=False, tool_choice="none")
            messages.append({"role": "assistant", "content": reply["content"]})
            written = episode.extract_python_code(reply["content"])
            if not written:
                messages.append({"role": "user", "content": "Answer with the complete file in one ```python block."})
                continue
            code = written
            if "test" not in tool_names:
                break
            result = episode.call_tool("test", {"code": code})
            if result["ok"]:
                passed = True
                break
            messages.append({"role": "user", "content": "The test failed:\n" + result["text"]})
        if code and "submit" in tool_names:
            episode.call_tool("submit", {"code": code})
    except BudgetExhausted:
        episode.log("budget spent; returning the last version")
    return {"final_code": code, "summary": "passed" if passed else "not known to pass"}
