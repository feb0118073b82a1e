// queue.js: the queue's order (overdue first, then by when the reply is due), the time left
// and the times as the row says them, the review's address, and the recordings either side of one.
async ({ spec, load, equal, same, ok }) => {
  const { parseRoute, queueNeighbours, renderQueue, reviewHash, sortQueue } = await load("queue.js");
  const { deadlineLabel, timeFormat, timeLabel, timeLeft } = await load("times.js");

  const now = Date.parse("2026-03-02T10:00:00Z");
  const at = (minutes) => new Date(now + minutes * 60000).toISOString();
  const item = (id, overdue, dueMinutes, submission = {}) => ({
    overdue, due_at: at(dueMinutes),
    submission: { id, kind: "week", week: 3, student_id: `S-${id}`, received_at: at(-600), ...submission },
  });
  const items = () => [item("A", false, 120), item("B", true, -60), item("C", false, 60), item("D", true, -120)];

  spec("timeLeft: minutes, hours, days, left or overdue", () => {
    equal(timeLeft(at(30), now), "30 min left");
    equal(timeLeft(at(0), now), "0 min left");
    equal(timeLeft(at(180), now), "3 h left");
    equal(timeLeft(at(90), now), "2 h left", "1.5 h rounds to 2");
    equal(timeLeft(at(1439), now), "24 h left", "under a day is hours");
    equal(timeLeft(at(2 * 1440), now), "2 d left");
    equal(timeLeft(at(-60), now), "1 h overdue");
    equal(timeLeft(at(-45), now), "45 min overdue");
    equal(timeLeft(at(-3 * 1440), now), "3 d overdue");
  });

  spec("timeLeft: where the browser's clock and the server's overdue disagree, the words follow the server", () => {
    equal(timeLeft(at(30), now, true), "overdue", "the server's programme clock is past the deadline");
    equal(timeLeft(at(-30), now, false), "due now", "the browser's clock is ahead of the server's");
    equal(timeLeft(at(-30), now, true), "30 min overdue", "agreeing, the span is said");
    equal(timeLeft(at(30), now, false), "30 min left");
  });

  spec("deadlineLabel: the weekday within six days; further away or past, its day and month too", () => {
    const utc = timeFormat("UTC");
    const from = Date.parse("2026-11-24T12:00:00Z");
    equal(deadlineLabel(utc, "2026-11-26T18:00:00Z", from), "Thu 18:00");
    equal(deadlineLabel(utc, "2026-11-30T11:59:00Z", from), "Mon 11:59", "just under six days");
    equal(deadlineLabel(utc, "2026-12-03T18:00:00Z", from), "Thu 3 Dec 18:00", "next week's Thursday is not this one");
    equal(deadlineLabel(utc, "2026-11-17T18:00:00Z", from), "Tue 17 Nov 18:00", "a week overdue");
  });

  spec("timeLabel: a day alone, with its year", () => {
    equal(timeLabel(timeFormat("UTC"), "2026-03-15T23:30:00Z", { dateOnly: true }), "15 Mar 2026");
    equal(timeLabel(timeFormat("Asia/Riyadh"), "2026-12-31T22:30:00Z", { dateOnly: true }), "1 Jan 2027", "the day in the zone given");
  });

  spec("timeLabel: a deadline as its weekday and 24-hour time, an arrival with its day and month too, in the zone given", () => {
    const newYork = timeFormat("America/New_York");
    equal(timeLabel(newYork, "2026-11-24T15:00:00Z"), "Tue 10:00");
    equal(timeLabel(newYork, "2026-11-24T23:30:00Z"), "Tue 18:30", "afternoons on a 24-hour clock");
    equal(timeLabel(newYork, "2026-11-23T05:05:00Z"), "Mon 00:05", "midnight is 00, never 24");
    equal(timeLabel(newYork, "2026-11-22T15:00:00Z", { date: true }), "Sun 22 Nov 10:00");
    equal(timeLabel(timeFormat("UTC"), "2026-09-07T09:00:00Z", { date: true }), "Mon 7 Sep 09:00");
    equal(timeLabel(timeFormat("Asia/Riyadh"), "2026-11-24T15:00:00Z"), "Tue 18:00", "the same instant in another zone");
  });

  spec("sortQueue: overdue first, then the soonest due; the list given is left as it was", () => {
    const list = items();
    same(sortQueue(list).map((entry) => entry.submission.id), ["D", "B", "C", "A"]);
    same(list.map((entry) => entry.submission.id), ["A", "B", "C", "D"], "not sorted in place");
  });

  spec("reviewHash and parseRoute: a review's address, any id, and everything else is the queue", () => {
    equal(reviewHash("a/b c"), "#/review/a%2Fb%20c");
    same(parseRoute(reviewHash("a/b c")), { view: "review", id: "a/b c" });
    same(parseRoute("#/review/01HX"), { view: "review", id: "01HX" });
    same(parseRoute(""), { view: "queue" });
    same(parseRoute("#/review/"), { view: "queue" });
    same(parseRoute("#/review/x/y"), { view: "queue" });
    same(parseRoute("#/queue"), { view: "queue" });
  });

  spec("queueNeighbours: the recordings before and after one in the queue's order; from outside the queue, the first is next", () => {
    same(queueNeighbours(items(), "B"), { previous: "D", next: "C", position: 2, count: 4 });
    same(queueNeighbours(items(), "D"), { previous: null, next: "B", position: 1, count: 4 });
    same(queueNeighbours(items(), "A"), { previous: "C", next: null, position: 4, count: 4 });
    same(queueNeighbours(items(), "Z"), { previous: null, next: "D", position: null, count: 4 });
    same(queueNeighbours([], "Z"), { previous: null, next: null, position: null, count: 0 });
  });

  spec("renderQueue: each row's due line says the time left and when it is due; overdue rows, late recordings and drafts are marked", () => {
    const list = document.createElement("ol");
    renderQueue(list, [item("A", false, 90, { late: true }), item("B", true, -60)], { now, drafts: new Set(["A"]) });
    const rows = [...list.children];
    same(rows.map((row) => row.dataset.submission), ["B", "A"]);
    same(rows.map((row) => row.className), ["overdue", ""]);
    const [overdue, waiting] = rows.map((row) => row.querySelector(".due"));
    equal(overdue.className, "due overdue");
    equal(overdue.firstChild.textContent, "1 h overdue");
    const skewed = document.createElement("ol");
    renderQueue(skewed, [item("E", true, 30)], { now });
    equal(skewed.querySelector(".due").firstChild.textContent, "overdue", "styled overdue by the server, so said overdue");
    equal(waiting.firstChild.textContent, "2 h left");
    const due = waiting.querySelector("time");
    equal(due.dateTime, at(90));
    ok(/^due (Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d\d:\d\d$/.test(due.textContent), due.textContent);
    ok(/^arrived (Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2} \d\d:\d\d$/.test(rows[1].querySelector(".arrived time").textContent),
      rows[1].querySelector(".arrived time").textContent);
    equal(rows[1].querySelector("a.open").getAttribute("href"), "#/review/A");
    same([...rows[1].querySelectorAll(".tag")].map((tag) => tag.textContent), ["late", "draft reply"]);
    equal(rows[0].querySelectorAll(".tag").length, 0);
  });
}
