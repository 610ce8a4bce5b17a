"""peewee models of the base tables, grouped by domain. Later areas define theirs beside
their own code.

Every model is bound to ``database_proxy`` (``base``). Import models from here:
``from kinbot_core.db.models import KinRecord``.
"""

from __future__ import annotations

from kinbot_core.db.models.accounts import BrowserSession, Invitation, User
from kinbot_core.db.models.backups import BackupRunRecord, BackupSettingsRecord
from kinbot_core.db.models.base import BaseModel, ThreadBoundDatabaseProxy, database_proxy
from kinbot_core.db.models.channels import (
    ChannelBindingRecord,
    ChannelChatRecord,
    ChannelConnectionRecord,
    ChannelDeliveryRecord,
    ChannelIdentityRecord,
    ChannelInboundRecord,
    ChannelPairingRecord,
)
from kinbot_core.db.models.configuration import (
    OnboardingStep,
    PluginSettingsRecord,
    PluginState,
    ProviderRecord,
    Setting,
)
from kinbot_core.db.models.kins import (
    KinMemberRecord,
    KinRecord,
    KinRequestRecord,
    MessageRecord,
    UploadRecord,
)
from kinbot_core.db.models.memory import ContactRecord, MemoryRecord, MemoryUsageRecord
from kinbot_core.db.models.notifications import (
    NotificationPreferenceRecord,
    PushSubscriptionRecord,
    VapidKeyRecord,
)
from kinbot_core.db.models.tasks import TaskRecord
from kinbot_core.db.models.tools import CustomToolRecord, ToolApprovalRecord, ToolApprovalRuleRecord
from kinbot_core.db.models.usage import ModelPrice, UsageBudget, UsageRecord
from kinbot_core.db.models.webhooks import WebhookRecord

__all__ = [
    "BackupRunRecord",
    "BackupSettingsRecord",
    "BaseModel",
    "BrowserSession",
    "ChannelBindingRecord",
    "ChannelChatRecord",
    "ChannelConnectionRecord",
    "ChannelDeliveryRecord",
    "ChannelIdentityRecord",
    "ChannelInboundRecord",
    "ChannelPairingRecord",
    "ContactRecord",
    "CustomToolRecord",
    "Invitation",
    "KinMemberRecord",
    "KinRecord",
    "KinRequestRecord",
    "MemoryRecord",
    "MemoryUsageRecord",
    "MessageRecord",
    "ModelPrice",
    "NotificationPreferenceRecord",
    "OnboardingStep",
    "PluginSettingsRecord",
    "PluginState",
    "ProviderRecord",
    "PushSubscriptionRecord",
    "Setting",
    "TaskRecord",
    "ThreadBoundDatabaseProxy",
    "ToolApprovalRecord",
    "ToolApprovalRuleRecord",
    "UploadRecord",
    "UsageBudget",
    "UsageRecord",
    "User",
    "VapidKeyRecord",
    "WebhookRecord",
    "database_proxy",
]
