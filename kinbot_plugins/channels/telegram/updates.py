"""A Telegram update as KinBot's ``IncomingMessage``: who wrote, where, whether the bot was
addressed, the text, and the files (downloaded)."""

from __future__ import annotations

import mimetypes
import re

from telegram import Bot, Message, MessageEntity, Update, User

from kinbot_core.channels import ChatKind, IncomingMedia, IncomingMessage, Sender


async def incoming(update: Update, bot: Bot, me: User) -> IncomingMessage | None:
    """The message an update carries, or ``None`` for an update of another kind (an edit,
    a reaction, a member joining…). Files are downloaded through ``bot``."""
    message = update.message
    if message is None or message.from_user is None:
        return None
    author = message.from_user
    kind: ChatKind = "direct" if message.chat.type == "private" else "group"
    text = message.text or message.caption or ""
    return IncomingMessage(
        message_id=f"{message.chat.id}:{message.message_id}",
        chat_id=str(message.chat.id),
        chat_kind=kind,
        sender=Sender(
            id=str(author.id),
            display_name=author.full_name or author.username or str(author.id),
            is_bot=author.is_bot,
            is_self=author.id == me.id,
            language=author.language_code,
        ),
        text=_without_mention(text, me.username) if kind == "group" else text,
        addressed=kind == "direct" or addresses(message, me),
        media=await _media(message, bot),
        cursor=str(update.update_id + 1),
        chat_title=message.chat.title,
    )


def addresses(message: Message, me: User) -> bool:
    """Whether a group message is for the bot: it mentions it (``@name``, a mention of its
    account, or a command aimed at it), or it answers one of its messages."""
    replied = message.reply_to_message
    if replied is not None and replied.from_user is not None and replied.from_user.id == me.id:
        return True
    username = (me.username or "").lower()
    entities = {**message.parse_entities(), **message.parse_caption_entities()}
    for entity, value in entities.items():
        if entity.type == MessageEntity.MENTION and value.lower() == f"@{username}":
            return True
        if entity.type == MessageEntity.TEXT_MENTION and entity.user and entity.user.id == me.id:
            return True
        if entity.type == MessageEntity.BOT_COMMAND and value.lower().endswith(f"@{username}"):
            return True
    return False


def _without_mention(text: str, username: str | None) -> str:
    if not username:
        return text
    cleaned = re.sub(rf"@{re.escape(username)}\b", "", text, flags=re.IGNORECASE)
    return re.sub(r"[ \t]{2,}", " ", cleaned).strip() or text


async def _media(message: Message, bot: Bot) -> list[IncomingMedia]:
    """The message's photo (its largest size), document, voice note or audio file."""
    found: list[IncomingMedia] = []
    if message.photo:
        largest = max(message.photo, key=lambda size: size.width * size.height)
        data = await _download(bot, largest.file_id)
        found.append(IncomingMedia(data, "image/jpeg", f"photo-{message.message_id}.jpg"))
    if message.document is not None:
        document = message.document
        mime_type = document.mime_type or "application/octet-stream"
        name = document.file_name or f"document-{message.message_id}{_extension(mime_type)}"
        found.append(IncomingMedia(await _download(bot, document.file_id), mime_type, name))
    if message.voice is not None:
        mime_type = message.voice.mime_type or "audio/ogg"
        name = f"voice-{message.message_id}{_extension(mime_type, '.ogg')}"
        found.append(IncomingMedia(await _download(bot, message.voice.file_id), mime_type, name))
    if message.audio is not None:
        audio = message.audio
        mime_type = audio.mime_type or "audio/mpeg"
        name = audio.file_name or f"audio-{message.message_id}{_extension(mime_type, '.mp3')}"
        found.append(IncomingMedia(await _download(bot, audio.file_id), mime_type, name))
    return found


async def _download(bot: Bot, file_id: str) -> bytes:
    file = await bot.get_file(file_id)
    return bytes(await file.download_as_bytearray())


def _extension(mime_type: str, default: str = "") -> str:
    if mime_type == "audio/ogg":
        return ".ogg"
    return mimetypes.guess_extension(mime_type) or default
