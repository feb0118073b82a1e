// Every time the desk shows, said one way: in the browser's own zone (the coach's), on a
// 24-hour clock and in the page's English whatever the browser's language — "Mon 18:00",
// "Sun 15 Mar 09:30", "15 Mar 2026". A deadline a week or more away (or past) carries its day
// and month, so the weekday alone never names the wrong week.

const DAY = 86400000;

/**
 * The desk's clock: an instant's weekday, day, month, year and 24-hour time in `timeZone`
 * (the browser's own when not given).
 */
export function timeFormat(timeZone) {
  return new Intl.DateTimeFormat("en-US", {
    weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone,
  });
}

/**
 * An instant said with `format` (timeFormat's): "Mon 18:00"; with `date`, "Mon 16 Mar 18:00";
 * with `dateOnly`, "16 Mar 2026".
 */
export function timeLabel(format, instant, { date = false, dateOnly = false } = {}) {
  const part = Object.fromEntries(format.formatToParts(new Date(instant)).map(({ type, value }) => [type, value]));
  if (dateOnly) return `${part.day} ${part.month} ${part.year}`;
  const time = `${part.hour}:${part.minute}`;
  return date ? `${part.weekday} ${part.day} ${part.month} ${time}` : `${part.weekday} ${time}`;
}

/** A deadline as a row says it: "Mon 18:00" within six days of `now`, "Mon 16 Mar 18:00" further away. */
export function deadlineLabel(format, dueAt, now = Date.now()) {
  return timeLabel(format, dueAt, { date: Math.abs(Date.parse(dueAt) - now) >= 6 * DAY });
}

/** A moment in the desk's words, with its day and month: "Sun 15 Mar 09:30". */
export const moment = (instant) => timeLabel(timeFormat(), instant, { date: true });

/** A day in the desk's words: "15 Mar 2026". */
export const day = (instant) => timeLabel(timeFormat(), instant, { dateOnly: true });

/**
 * The time left until `dueAt` by the browser's clock: "3 h left", "45 min overdue". The
 * server decides what is overdue (`overdue`, its programme clock); where the browser's clock
 * disagrees, the words follow the server: "overdue", or "due now" when the server says not yet.
 */
export function timeLeft(dueAt, now = Date.now(), overdue = undefined) {
  const minutes = Math.round((Date.parse(dueAt) - now) / 60000);
  if (overdue === true && minutes >= 0) return "overdue";
  if (overdue === false && minutes < 0) return "due now";
  const span = Math.abs(minutes);
  const text = span >= 1440 ? `${Math.round(span / 1440)} d` : span >= 60 ? `${Math.round(span / 60)} h` : `${span} min`;
  return minutes >= 0 ? `${text} left` : `${text} overdue`;
}
