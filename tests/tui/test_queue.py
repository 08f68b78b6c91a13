"""Enter while an answer streams queues the prompt, visibly, and sends it when the
turn ends; Esc still interrupts and puts the queued prompt back into the input (not sent, not lost).
Real app, real session, the offline model streaming slowly (the word `slow`)."""

from __future__ import annotations

from pilot_helpers import wait_idle, wait_ready, wait_until

SIZE = (100, 30)


async def queue_while_streaming(pilot, text: str) -> None:
    """Once the app is ready, send `say something slow` and, while its answer streams, type `text`
    and press Enter (which queues it)."""
    await wait_ready(pilot)
    await pilot.press(*"say something slow")
    pilot.app.simulate_key("enter")
    await wait_until(pilot, lambda: pilot.app.chat.query("AssistantMessage"), what="the answer streaming")
    await pilot.press(*text, "enter")


def user_prompts(app) -> list[str]:
    return [w.text for w in app.chat.log_view.query("UserMessage")]


async def test_enter_while_streaming_queues_the_prompt_and_sends_it_after(real_app) -> None:
    async with real_app.run_test(size=SIZE) as pilot:
        app = pilot.app
        await queue_while_streaming(pilot, "tell me more please")
        strip = app.chat.queue_strip
        assert app.busy and strip.texts == ("tell me more please",) and strip.display
        assert "↳ queued: tell me more please" in str(strip.render()) and "sent when this turn ends" in str(
            strip.render()
        )
        assert app.chat.prompt.text == ""  # taken, not left in the input
        await wait_until(pilot, lambda: user_prompts(app) == ["say something slow", "tell me more please"], what="sent")
        await wait_idle(pilot)
        assert not strip.texts and not strip.display
        answers = list(app.chat.query("AssistantMessage"))
        assert len(answers) == 2 and not answers[0].interrupted
        assert "tell me more please" in answers[1].text


async def test_esc_interrupts_and_puts_the_queued_prompt_back(real_app) -> None:
    async with real_app.run_test(size=SIZE) as pilot:
        app = pilot.app
        await queue_while_streaming(pilot, "tell me more please")
        assert app.chat.queue_strip.texts == ("tell me more please",)
        await pilot.press("escape")
        await wait_idle(pilot)
        assert app.chat.prompt.text == "tell me more please"
        assert not app.chat.queue_strip.display
        notices = [w.text for w in app.chat.query("NoticeLine")]
        assert "the queued prompt was not sent: it is back in the prompt" in notices
        assert user_prompts(app) == ["say something slow"]  # not sent
        assert app.chat.query("AssistantMessage").last().interrupted
        assert len(app.session.transcript) == 2


async def test_esc_with_two_queued_prompts_says_both_were_not_sent(real_app) -> None:
    """It said `the queued prompt was not sent` and put two prompts back as one (issue 32, item 9)."""
    async with real_app.run_test(size=SIZE) as pilot:
        app = pilot.app
        await queue_while_streaming(pilot, "first follow-up")
        await pilot.press(*"second follow-up", "enter")
        await wait_until(pilot, lambda: len(app.chat.queue_strip.texts) == 2, what="two queued")
        await pilot.press("escape")
        await wait_idle(pilot)
        assert app.chat.prompt.text == "first follow-up\n\nsecond follow-up"
        notices = [w.text for w in app.chat.query("NoticeLine")]
        assert (
            "2 queued prompts were not sent: they are back in the prompt as one, a blank line between them" in notices
        )
        assert not any(n.startswith("the queued prompt") for n in notices)
        assert user_prompts(app) == ["say something slow"]
